/**
 * `GET /events`: one SSE stream for the runs list. After `GET /pipelines`, a client follows this stream and gets an
 * `event: run` message with the run's new summary whenever a run starts, moves to another stage, asks or gets an
 * answer, reports usage or ends — no polling. Messages of one run are at most one per `throttleMs`; the last
 * change of a burst is always sent. A run deleted (`DELETE /pipelines/{id}`) gets `event: removed` with `{ id }`.
 */
import type { SSEStreamingApi } from 'hono/streaming';
import { ApiError } from './errors/api-error.js';
import type { RunManager } from './run-manager.js';

/** Options of {@link streamRunChanges}. */
export interface StreamRunChangesOptions {
  readonly manager: RunManager;
  /** Least time between two messages about the same run, in milliseconds. Default: 200. */
  readonly throttleMs?: number;
  /** Sleeps `ms` (the injected clock's sleep). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Writes run summaries to an SSE stream as runs change, until the client goes away or the server stops. */
export async function streamRunChanges(
  stream: SSEStreamingApi,
  options: StreamRunChangesOptions,
): Promise<void> {
  const { manager } = options;
  const throttleMs = options.throttleMs ?? 200;
  const dirty = new Set<string>();
  let wake: (() => void) | undefined;
  let aborted = false;
  const controller = new AbortController();
  const unsubscribe = manager.onRunChange((runId) => {
    dirty.add(runId);
    wake?.();
  });
  const stopped = manager.onStop(() => {
    aborted = true;
    controller.abort();
    wake?.();
  });
  stream.onAbort(() => {
    aborted = true;
    controller.abort();
    wake?.();
  });
  try {
    // A first message tells the client the stream is open (and its proxy that it is alive).
    await stream.writeSSE({ event: 'ready', data: '{}' });
    while (!aborted) {
      if (dirty.size === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      const ids = [...dirty];
      dirty.clear();
      for (const id of ids) {
        if (aborted) break;
        const summary = await manager
          .summaryOf(id)
          .catch((error: unknown) =>
            ApiError.isInstance(error) && error.code === 'RUN_NOT_FOUND' ? null : undefined,
          );
        if (summary === null) await stream.writeSSE({ event: 'removed', data: JSON.stringify({ id }) });
        else if (summary !== undefined)
          await stream.writeSSE({ event: 'run', data: JSON.stringify(summary) });
      }
      await options.sleep(throttleMs, controller.signal).catch(() => undefined);
    }
  } finally {
    unsubscribe();
    stopped();
  }
}
