/**
 * Where shared runs live: `--store <url>` / `ATTRACTOR_STORE_URL` (the run store: a PostgreSQL URL or a directory on
 * a shared volume) and `--queue <url>` / `ATTRACTOR_QUEUE_URL` (the run queue: a PostgreSQL URL). Every message about
 * them names the setting and how to fix it.
 */
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFileRunCatalog, type RunCatalog } from '@attractor/engine';
import type { RunQueue, RunQueueReader } from '@attractor/worker';
import type { Tracer } from '@opentelemetry/api';
import { quoteArgument } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';

/** The run store setting, for messages. */
export const STORE_SETTING = '--store / ATTRACTOR_STORE_URL';

/**
 * Where the CLI keeps runs when no store is set (the parent of `run`'s default `--logs-dir`), relative to the working
 * directory: what `runs` and `purge` read then.
 */
export const LOCAL_RUNS = '.attractor/runs';

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
 * What a printed command (`attractor resume <run id>`, `attractor answer <run id> <key>`) must add to reach the queue
 * this command used: `''` when `ATTRACTOR_QUEUE_URL` names it (the pasted command finds it there, as `resume` and
 * `answer` do); ` --queue <url>` for a URL given as an option that holds no password; ` --queue <queue url>` (to fill
 * in) otherwise, since a password never goes into a hint and `inspect` does not know the queue.
 *
 * @param option - the command's `--queue` value (`undefined` or `true`: the environment's).
 */
export function queueHintOption(option: string | boolean | undefined, io: CliIo): string {
  return hintOption({
    flag: '--queue',
    url: queueUrlOf(option, io),
    fromEnvironment: queueUrlOf(undefined, io),
  });
}

/**
 * What a printed command (`attractor inspect <run id>`) must add to reach the run store this command used: `''` when
 * `ATTRACTOR_STORE_URL` names it; ` --store <url or directory>` for one given as an option that holds no password;
 * ` --store <store url>` (to fill in) otherwise, since a password never goes into a hint.
 *
 * @param option - the command's `--store` value (`undefined`: the environment's).
 */
export function storeHintOption(option: string | undefined, io: CliIo): string {
  return hintOption({
    flag: '--store',
    url: storeUrlOf(option, io),
    fromEnvironment: storeUrlOf(undefined, io),
  });
}

function hintOption(options: {
  readonly flag: '--queue' | '--store';
  readonly url: string | undefined;
  readonly fromEnvironment: string | undefined;
}): string {
  const { flag, url } = options;
  if (url !== undefined && url === options.fromEnvironment) return '';
  if (url === undefined || holdsPassword(url)) return ` ${flag} <${flag.slice(2)} url>`;
  return ` ${flag} ${quoteArgument(url)}`;
}

function holdsPassword(url: string): boolean {
  if (/password=/i.test(url)) return true;
  // A directory (a file store on a shared volume) is no URL and holds none.
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return false;
  try {
    return new URL(url).password !== '';
  } catch {
    return true;
  }
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
export type OpenedCatalog = RunCatalog;

/**
 * Opens the run catalog a store URL names: `postgres://` / `postgresql://` → PostgreSQL; a path or `file://` URL →
 * run directories under it.
 * @param options.probe - connect to a PostgreSQL store now, so that a bad URL or a server that is down is reported
 *   here (default: true; a worker waits for the store itself).
 * @param options.maxConnections - the PostgreSQL store's pool size (default: the store's).
 * @throws {CliError} when the URL names another scheme.
 */
export async function openRunCatalog(
  url: string,
  io: CliIo,
  options: { readonly probe?: boolean; readonly maxConnections?: number } = {},
): Promise<OpenedCatalog> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { createPostgresRunCatalog } = await import('./open-postgres-catalog.js');
    let catalog: RunCatalog;
    try {
      const postgres = createPostgresRunCatalog({
        connectionString: url,
        ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      });
      catalog = postgres;
      // Connects and applies the store's migrations now (nothing else: a query of the run index would sort every
      // run), so that a bad URL or a server that is down is reported here.
      if (options.probe !== false) await postgres.migrate();
    } catch (error) {
      throw storeUnavailable(error, url);
    }
    return catalog;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('file://')) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `The run store URL (${STORE_SETTING}) must be postgres://…, file://… or a directory, not "${url.replace(/\/\/[^@/]*@/, '//***@')}".`,
    });
  }
  const directory = url.startsWith('file://')
    ? fileURLToPath(url)
    : isAbsolute(url)
      ? url
      : resolve(io.cwd, url);
  return createFileRunCatalog(directory);
}

/** A one-line error for a PostgreSQL run store that cannot be reached or refuses, naming the setting and the fix. */
function storeUnavailable(error: unknown, url: string): CliError {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const location = url.replace(/(\/\/[^/:@]*):[^@/]*@/, '$1@');
  const fix =
    code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEDOUT'
      ? `Start PostgreSQL there, or point ${STORE_SETTING} at a running server`
      : code === '28P01' || code === '28000'
        ? 'Fix the user and password in the URL'
        : code === '3D000'
          ? 'Create the database (createdb) or fix its name in the URL'
          : `Check ${STORE_SETTING}`;
  return new CliError({
    code: 'CLI_SERVICE_UNAVAILABLE',
    exitCode: 1,
    message: `The run store at ${location} (${STORE_SETTING}) is not available: ${message}. ${fix}.`,
    cause: error,
  });
}

/** The queue key setting, for messages. */
export const QUEUE_KEY_SETTING = 'ATTRACTOR_QUEUE_KEY';

/** The queue key from `ATTRACTOR_QUEUE_KEY` (runs enqueued with it are signed; workers check it), or undefined. */
export function queueKeyOf(io: CliIo): string | undefined {
  const value = io.env[QUEUE_KEY_SETTING];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * Connects to the run queue, turning an unreachable or refusing server into a one-line error that names the setting.
 * With `io`, runs it enqueues are signed with the queue key (`ATTRACTOR_QUEUE_KEY`) and refused when they hold one of
 * the secrets the CLI knows outside a secret-named key; with `tracer`, `enqueueRun` is a span.
 * @throws {CliError} `CLI_SERVICE_UNAVAILABLE` (exit 1) or `CLI_USAGE` for a URL that is not PostgreSQL's.
 */
export async function connectQueueOrExplain(url: string, io?: CliIo, tracer?: Tracer): Promise<RunQueue> {
  const { connectRunQueue, QueueUnavailableError } = await import('./connect-queue.js');
  const queueKey = io === undefined ? undefined : queueKeyOf(io);
  try {
    return await connectRunQueue({
      url,
      ...(queueKey === undefined ? {} : { queueKey }),
      ...(io?.secretValues === undefined ? {} : { secretValues: io.secretValues }),
      ...(tracer === undefined ? {} : { tracer }),
    });
  } catch (error) {
    if (QueueUnavailableError.isInstance(error)) throw serviceError(error);
    throw error;
  }
}

/**
 * Opens a read-only view of the run queue (no pg-boss: what `runs` needs), turning an unreachable or refusing server
 * into a one-line error that names the setting.
 * @throws {CliError} `CLI_SERVICE_UNAVAILABLE` (exit 1) or `CLI_USAGE` for a URL that is not PostgreSQL's.
 */
export async function openQueueReaderOrExplain(url: string): Promise<RunQueueReader> {
  const { openRunQueueReader, QueueUnavailableError } = await import('./open-queue-reader.js');
  try {
    return await openRunQueueReader({ url });
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
