/**
 * The SSE stream of a run (spec §9.5 `GET /pipelines/{id}/events`): first the run's recorded events after
 * `Last-Event-ID` (from `events.jsonl` and, for a live run, the events not flushed yet), then live events until the
 * run ends, then an `end` event. Each of the run's own events carries its `seq` as the SSE id, so a client that
 * reconnects with `Last-Event-ID` misses nothing and sees nothing twice.
 */
import { createFileRunStore, type PipelineEvent } from '@attractor/engine';
import type { SSEStreamingApi } from 'hono/streaming';
import type { RunManager } from './run-manager.js';

/** Options of {@link streamRunEvents}. */
export interface StreamRunEventsOptions {
  readonly manager: RunManager;
  readonly runId: string;
  readonly logsRoot: string;
  /** Replay events with a greater `seq` only. Default: 0 (everything). */
  readonly lastEventId: number;
}

/** Writes the run's events to an SSE stream until the run ends or the client goes away. */
export async function streamRunEvents(
  stream: SSEStreamingApi,
  options: StreamRunEventsOptions,
): Promise<void> {
  const { manager, runId } = options;
  const live = manager.live(runId);
  // `null` marks the end of the run.
  const queue: (PipelineEvent | null)[] = [];
  let wake: (() => void) | undefined;
  let aborted = false;
  const push = (event: PipelineEvent | undefined) => {
    queue.push(event ?? null);
    wake?.();
  };
  // Subscribe before reading the file: an event emitted meanwhile is then queued, and `seq` removes duplicates.
  const following = live !== undefined && !live.ended;
  if (following) live.subscribers.add(push);
  stream.onAbort(() => {
    aborted = true;
    live?.subscribers.delete(push);
    wake?.();
  });

  const recorded = new Map<number, PipelineEvent>();
  for (const event of await createFileRunStore({ logsRoot: options.logsRoot }).readEvents())
    if (event.runId === runId) recorded.set(event.seq, event);
  for (const event of live?.events ?? []) recorded.set(event.seq, event);
  let lastSent = options.lastEventId;
  for (const seq of [...recorded.keys()].sort((a, b) => a - b)) {
    if (seq <= lastSent) continue;
    if (aborted) return;
    await stream.writeSSE({ id: String(seq), data: JSON.stringify(manager.secrets.mask(recorded.get(seq))) });
    lastSent = seq;
  }

  while (following && !aborted) {
    if (queue.length === 0) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
      continue;
    }
    const event = queue.shift()!;
    if (event === null) break;
    if (event.runId !== runId) {
      // Events of child pipelines (or of a loop_restart's next directory) have their own seq: live only.
      await stream.writeSSE({ data: JSON.stringify(manager.secrets.mask(event)) });
    } else if (event.seq > lastSent) {
      await stream.writeSSE({ id: String(event.seq), data: JSON.stringify(manager.secrets.mask(event)) });
      lastSent = event.seq;
    }
  }
  if (aborted) return;
  const summary = await manager.summaryOf(runId);
  await stream.writeSSE({ event: 'end', data: JSON.stringify({ state: summary.state }) });
}
