/**
 * A worker and the services it needs (the run queue, the run store): at start-up it waits for them, a bounded time,
 * saying once that it waits; afterwards it checks them every few seconds and says once when one stops answering and
 * once when it is back. Runs in progress meanwhile fail their job on the fault and are retried by pg-boss (nothing
 * is lost); these lines only tell the operator what is going on.
 */
import type { Clock } from '@attractor/engine';
import type { WorkerRunCatalog } from './catalog-run-stores.js';
import { QueueUnavailableError } from './errors/queue-unavailable-error.js';
import type { RunQueue } from './run-queue.js';
import type { WorkerEvent, WorkerService } from './start-worker.js';

/** How long between two attempts while a service is away at start-up, in milliseconds. */
const RETRY_MS = 1000;

/** A probe of the run store: a catalog that can list runs (every `RunCatalog`) is asked for one. */
async function probeStore(catalog: WorkerRunCatalog): Promise<void> {
  const listRuns = (catalog as { listRuns?: (filter: { limit: number }) => Promise<unknown> }).listRuns;
  await listRuns?.call(catalog, { limit: 1 });
}

/** PostgreSQL's codes of faults that waiting does not fix: a refused login, a missing database, no permission. */
const PERMANENT_CODES = new Set(['28P01', '28000', '3D000', '42501']);

/** Whether waiting may fix `error` (a server down or starting), not a bad URL or a refused login. */
function isRetryable(error: unknown): boolean {
  if (QueueUnavailableError.isInstance(error)) return error.retryable;
  return !PERMANENT_CODES.has(String((error as { code?: unknown } | undefined)?.code));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Connects to the queue and checks the store, retrying for up to `waitSeconds` while either is unreachable (a
 * retryable fault: the server is down or starting), with one `service.unavailable` event per service that keeps it
 * waiting and a `service.available` event once it answers.
 * @throws the last error once `waitSeconds` have passed, or at once for a fault a retry would not fix (a bad URL,
 *   a refused login).
 */
export async function connectWhenAvailable(options: {
  readonly connect: () => Promise<RunQueue>;
  readonly catalog: WorkerRunCatalog;
  readonly waitSeconds: number;
  readonly clock: Clock;
  readonly emit: (event: WorkerEvent) => void;
}): Promise<RunQueue> {
  const { clock, emit } = options;
  const deadline = clock.now() + options.waitSeconds * 1000;
  const waitingSince = new Map<WorkerService, number>();
  const attempt = async <T>(service: WorkerService, run: () => Promise<T>): Promise<T> => {
    while (true) {
      try {
        const value = await run();
        const since = waitingSince.get(service);
        if (since !== undefined) emit({ type: 'service.available', service, downForMs: clock.now() - since });
        return value;
      } catch (error) {
        if (!isRetryable(error) || clock.now() + RETRY_MS > deadline) throw error;
        if (!waitingSince.has(service)) {
          waitingSince.set(service, clock.now());
          emit({
            type: 'service.unavailable',
            service,
            message: messageOf(error),
            waitingUntil: new Date(deadline).toISOString(),
          });
        }
        await clock.sleep(RETRY_MS);
      }
    }
  };
  await attempt('store', () => probeStore(options.catalog));
  return attempt('queue', options.connect);
}

/**
 * Checks the queue (`SELECT 1`) and the store every `intervalSeconds` and reports each change: one
 * `service.unavailable` when one stops answering, one `service.available` when it answers again.
 */
export function watchServices(options: {
  readonly queue: RunQueue;
  readonly catalog: WorkerRunCatalog;
  readonly intervalSeconds: number;
  readonly clock: Clock;
  readonly emit: (event: WorkerEvent) => void;
}): { close(): void } {
  const { clock, emit } = options;
  const closed = new AbortController();
  const downSince = new Map<WorkerService, number>();
  const check = async (service: WorkerService, probe: () => Promise<unknown>) => {
    try {
      await probe();
      const since = downSince.get(service);
      if (since !== undefined) {
        downSince.delete(service);
        emit({ type: 'service.available', service, downForMs: clock.now() - since });
      }
    } catch (error) {
      if (closed.signal.aborted || downSince.has(service)) return;
      downSince.set(service, clock.now());
      emit({ type: 'service.unavailable', service, message: messageOf(error) });
    }
  };
  void (async () => {
    while (!closed.signal.aborted) {
      try {
        await clock.sleep(options.intervalSeconds * 1000, closed.signal);
      } catch {
        return;
      }
      await Promise.all([
        check('queue', () => options.queue.pool.query('SELECT 1')),
        check('store', () => probeStore(options.catalog)),
      ]);
    }
  })();
  return { close: () => closed.abort() };
}
