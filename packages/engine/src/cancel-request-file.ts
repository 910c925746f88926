/**
 * `cancel-request.json` in a run directory: how another process (`attractor cancel <run dir>`, on this host or any
 * host that shares the directory) asks the runner that holds the run to cancel it. The runner of a run directory looks
 * for the file once a second while it holds the run; when it finds one written after it took the run, it removes it
 * and cancels the run as Ctrl-C would (the running stage is aborted, its command's process group ended, the checkpoint
 * kept, the run ends `cancelled`). A request older than the runner's lock (left by a runner that died first) is
 * removed unread.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from './write-file-atomic-sync.js';

/** The file name in the run directory. */
export const CANCEL_REQUEST_FILE = 'cancel-request.json';

/** How often a runner looks for a cancel request, in milliseconds. */
const WATCH_INTERVAL_MS = 1000;

/** The JSON shape of `cancel-request.json`. */
export interface CancelRequestFile {
  readonly version: 1;
  /** Why, for the run's `pipeline.cancelled` event and its checkpoint's `failure_reason`. */
  readonly reason: string;
  /** When it was asked (ISO-8601). */
  readonly requested_at: string;
}

/** Options of {@link requestRunCancel}. */
export interface RequestRunCancelOptions {
  /** The run directory (it exists). */
  readonly logsRoot: string;
  /** Why. Default: `cancelled by request`. */
  readonly reason?: string;
  /** When (ISO-8601). Default: now. */
  readonly requestedAt?: string;
}

/**
 * Asks the runner of a run directory to cancel the run: writes `cancel-request.json` atomically. The runner acts
 * within about a second; watch the run's status (`RunCatalog.readRunEntry`) to know when it has stopped.
 * @throws the file-system error when the directory cannot be written.
 */
export function requestRunCancel(options: RequestRunCancelOptions): void {
  const file: CancelRequestFile = {
    version: 1,
    reason: options.reason ?? 'cancelled by request',
    requested_at: options.requestedAt ?? new Date().toISOString(),
  };
  writeFileAtomicSync(join(options.logsRoot, CANCEL_REQUEST_FILE), `${JSON.stringify(file)}\n`);
}

/** Options of {@link watchCancelRequest}. Internal to the engine. */
export interface WatchCancelRequestOptions {
  readonly logsRoot: string;
  /** When the runner took the run (ISO-8601): requests from before are stale. */
  readonly since: string;
  /** Called once, with the request's reason. */
  readonly onRequest: (reason: string) => void;
}

/**
 * Watches a run directory for a cancel request while its runner holds it: removes a stale one now, then looks once a
 * second (a timer that does not keep the process alive). Returns the function that stops watching.
 */
export function watchCancelRequest(options: WatchCancelRequestOptions): () => void {
  const path = join(options.logsRoot, CANCEL_REQUEST_FILE);
  const sinceMs = Date.parse(options.since);
  const look = (): boolean => {
    const request = readRequest(path);
    if (request === undefined) return false;
    rmSync(path, { force: true });
    const requestedMs = Date.parse(request.requested_at);
    if (Number.isFinite(requestedMs) && Number.isFinite(sinceMs) && requestedMs < sinceMs) return false;
    options.onRequest(request.reason);
    return true;
  };
  look();
  const timer = setInterval(() => {
    try {
      if (look()) clearInterval(timer);
    } catch {
      // An unreadable directory now: the next look may succeed; the run goes on either way.
    }
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The request in `path`, or undefined when there is none (or it is not one: a torn or foreign file is ignored). */
function readRequest(path: string): CancelRequestFile | undefined {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const record = data as Partial<CancelRequestFile>;
  return {
    version: 1,
    reason:
      typeof record.reason === 'string' && record.reason !== '' ? record.reason : 'cancelled by request',
    requested_at: typeof record.requested_at === 'string' ? record.requested_at : '',
  };
}
