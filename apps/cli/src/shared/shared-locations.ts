/**
 * Where shared runs live: `--store <url>` / `ATTRACTOR_STORE_URL` (the run store: a PostgreSQL URL or a directory on
 * a shared volume) and `--queue <url>` / `ATTRACTOR_QUEUE_URL` (the run queue: a PostgreSQL URL). Every message about
 * them names the setting and how to fix it.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFileRunStore } from '@attractor/engine';
import type { RunQueue, WorkerRunCatalog } from '@attractor/worker';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';

/** The run store setting, for messages. */
export const STORE_SETTING = '--store / ATTRACTOR_STORE_URL';

/** The store URL from `--store` or `ATTRACTOR_STORE_URL`, or undefined. */
export function storeUrlOf(option: string | undefined, io: CliIo): string | undefined {
  const value = option ?? io.env.ATTRACTOR_STORE_URL;
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The queue URL from `--queue <url>` or `ATTRACTOR_QUEUE_URL`, or undefined. */
export function queueUrlOf(option: string | boolean | undefined, io: CliIo): string | undefined {
  const value = typeof option === 'string' ? option : io.env.ATTRACTOR_QUEUE_URL;
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * The store URL, or a usage error saying how to give one.
 * @throws {CliError} when neither `--store` nor `ATTRACTOR_STORE_URL` is set.
 */
export function requireStoreUrl(option: string | undefined, io: CliIo, what: string): string {
  const url = storeUrlOf(option, io);
  if (url === undefined) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `${what} needs the shared run store: pass --store <url> or set ATTRACTOR_STORE_URL (postgres://user:password@host:5432/db, or a directory on a shared volume).`,
    });
  }
  return url;
}

/**
 * The queue URL, or a usage error saying how to give one.
 * @throws {CliError} when neither `--queue <url>` nor `ATTRACTOR_QUEUE_URL` is set.
 */
export function requireQueueUrl(option: string | boolean | undefined, io: CliIo, what: string): string {
  const url = queueUrlOf(option, io);
  if (url === undefined) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `${what} needs the run queue: pass --queue <url> or set ATTRACTOR_QUEUE_URL (postgres://user:password@host:5432/db).`,
    });
  }
  return url;
}

/** A run catalog the CLI opened, closed by `close`. */
export interface OpenedCatalog extends WorkerRunCatalog {
  close(): Promise<void>;
}

/**
 * Opens the run catalog a store URL names: `postgres://` / `postgresql://` → PostgreSQL; a path or `file://` URL →
 * run directories under it.
 * @throws {CliError} when the URL names another scheme.
 */
export async function openRunCatalog(url: string, io: CliIo): Promise<OpenedCatalog> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    throw new CliError({
      code: 'CLI_SERVICE_UNAVAILABLE',
      exitCode: 1,
      message: `The PostgreSQL run store is not part of this build yet (${STORE_SETTING}); use a directory on a shared volume.`,
    });
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('file://')) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `The run store URL (${STORE_SETTING}) must be postgres://…, file://… or a directory, not "${url.replace(/\/\/[^@/]*@/, '//***@')}".`,
    });
  }
  const directory = url.startsWith('file://') ? fileURLToPath(url) : isAbsolute(url) ? url : resolve(io.cwd, url);
  return {
    location: directory,
    open: (runId) => createFileRunStore({ logsRoot: join(directory, runId) }),
    close: async () => undefined,
  };
}

/**
 * Connects to the run queue, turning an unreachable or refusing server into a one-line error that names the setting.
 * @throws {CliError} `CLI_SERVICE_UNAVAILABLE` (exit 1) or `CLI_USAGE` for a URL that is not PostgreSQL's.
 */
export async function connectQueueOrExplain(url: string): Promise<RunQueue> {
  const { connectRunQueue, QueueUnavailableError } = await import('@attractor/worker');
  try {
    return await connectRunQueue({ url });
  } catch (error) {
    if (QueueUnavailableError.isInstance(error)) throw serviceError(error);
    throw error;
  }
}

/** A {@link CliError} for a fault of the queue or the store that explains itself. */
export function serviceError(error: Error & { readonly retryable?: boolean }): CliError {
  return new CliError({
    code: error.retryable === false ? 'CLI_USAGE' : 'CLI_SERVICE_UNAVAILABLE',
    exitCode: error.retryable === false ? 2 : 1,
    message: error.message,
    cause: error,
  });
}
