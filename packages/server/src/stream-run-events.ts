/**
 * The SSE stream of a run (spec §9.5 `GET /pipelines/{id}/events`): first the run's recorded events after
 * `Last-Event-ID` (from `events.jsonl` and, for a live run, the events not flushed yet; for a fresh client also those
 * of its child pipelines, from their run directories, without ids), then live events until the
 * run ends, then an `end` event. Each of the run's own events carries its `seq` as the SSE id, so a client that
 * reconnects with `Last-Event-ID` misses nothing and sees nothing twice.
 */
import { createFileRunStore, type PipelineEvent } from '@attractor/engine';
import type { SSEStreamingApi } from 'hono/streaming';
import type { RunManager } from './run-manager.js';
import { listChildRunDirectories } from './stage-directory-files.js';

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
  // Events go out in batches (one write per batch): a fast run emits hundreds of events a second, and one awaited
  // write per event would fall behind the engine.
  let batch = '';
  for (const seq of [...recorded.keys()].sort((a, b) => a - b)) {
    if (seq <= lastSent) continue;
    batch += sseMessage(recorded.get(seq)!, String(seq));
    lastSent = seq;
    if (batch.length >= MAX_BATCH_CHARS) {
      if (aborted) return;
      await stream.write(batch);
      batch = '';
    }
  }
  if (batch !== '' && !aborted) await stream.write(batch);
  // A fresh client also gets the events of the run's child pipelines so far (from their own run directories; they
  // have no id in this stream). A reconnecting one has seen them.
  if (options.lastEventId === 0) {
    for (const childDir of listChildRunDirectories(options.logsRoot)) {
      batch = '';
      for (const event of await createFileRunStore({ logsRoot: childDir }).readEvents())
        batch += sseMessage(event, undefined);
      if (batch !== '' && !aborted) await stream.write(batch);
    }
  }

  let ended = false;
  while (following && !aborted && !ended) {
    if (queue.length === 0) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
      continue;
    }
    const taken = queue.splice(0, queue.length);
    batch = '';
    for (const event of taken) {
      if (event === null) {
        ended = true;
        break;
      }
      if (event.runId !== runId) {
        // Events of child pipelines (or of a loop_restart's next directory) have their own seq: live only.
        batch += sseMessage(event, undefined);
      } else if (event.seq > lastSent) {
        batch += sseMessage(event, String(event.seq));
        lastSent = event.seq;
      }
    }
    if (batch !== '' && !aborted) await stream.write(batch);
  }
  if (aborted) return;
  const summary = await manager.summaryOf(runId);
  await stream.writeSSE({ event: 'end', data: JSON.stringify({ state: summary.state }) });
}

/** Largest batch of SSE text written at once while replaying, in characters. */
const MAX_BATCH_CHARS = 256 * 1024;

/** One SSE message: the event as JSON on one `data:` line (JSON text has no raw newlines), with its id. */
function sseMessage(event: PipelineEvent, id: string | undefined): string {
  return `data: ${JSON.stringify(event)}\n${id === undefined ? '' : `id: ${id}\n`}\n`;
}
