/**
 * The SSE stream of a run (spec §9.5 `GET /pipelines/{id}/events`): first the run's recorded events after
 * `Last-Event-ID` (from `events.jsonl` and, for a live run, the events not flushed yet; for a fresh client also those
 * of its child pipelines, from their run directories, without ids), then live events until the
 * run ends, then an `end` event. Each of the run's own events carries its `seq` as the SSE id, so a client that
 * reconnects with `Last-Event-ID` misses nothing and sees nothing twice.
 *
 * With `child`, the stream is that of a child run (sub-pipeline, manager loop) of the run: the child's recorded
 * events (ids: the child's `seq`) and those of its own children, then the live events under the child, until the
 * child (or the run) ends.
 */

import { relative, sep } from 'node:path';
import { createFileRunStore, type PipelineEvent } from '@attractor/engine';
import type { SSEStreamingApi } from 'hono/streaming';
import type { ChildRunDirectory } from './child-run-directory.js';
import { childRunKey, parseChildRunPath, relateToChildRun } from './child-run-path.js';
import type { RunManager } from './run-manager.js';
import { listChildRunDirectories } from './stage-directory-files.js';

/** Options of {@link streamRunEvents}. */
export interface StreamRunEventsOptions {
  readonly manager: RunManager;
  /** The (top) run's id. */
  readonly runId: string;
  /** The run directory streamed: the run's, or with `child`, the child's. */
  readonly logsRoot: string;
  /** Stream this child run of the run instead of the run itself. */
  readonly child?: ChildRunDirectory;
  /** Replay events with a greater `seq` only. Default: 0 (everything). */
  readonly lastEventId: number;
  /**
   * Follow the live run until it ends (`?follow=false` turns it off: only the events recorded so far, then `end` with
   * the run's current state). Default: true.
   */
  readonly follow?: boolean;
}

/** Writes the run's events to an SSE stream until the run ends or the client goes away. */
export async function streamRunEvents(
  stream: SSEStreamingApi,
  options: StreamRunEventsOptions,
): Promise<void> {
  const { manager, runId, child } = options;
  const live = manager.live(runId);
  /** Whether an event is the streamed run's own (its walk and parallel branches), and when so whether it ends it. */
  const relate = (event: PipelineEvent): 'own' | 'end' | 'other' => {
    if (child === undefined) return event.runId === runId ? 'own' : 'other';
    const relation = relateToChildRun(event, child);
    if (relation?.kind !== 'own') return 'other';
    return relation.relativePath.length === 0 && ENDS.has(event.type) ? 'end' : 'own';
  };
  // `null` marks the end of the run.
  const queue: (PipelineEvent | null)[] = [];
  let wake: (() => void) | undefined;
  let aborted = false;
  const push = (event: PipelineEvent | undefined) => {
    queue.push(event ?? null);
    wake?.();
  };
  // Subscribe before reading the file: an event emitted meanwhile is then queued, and `seq` removes duplicates.
  let following = options.follow !== false && live !== undefined && !live.ended;
  if (following) live!.subscribers.add(push);
  stream.onAbort(() => {
    aborted = true;
    live?.subscribers.delete(push);
    wake?.();
  });

  const recorded = new Map<number, PipelineEvent>();
  const ownRunId = child?.runId ?? runId;
  for (const event of await createFileRunStore({ logsRoot: options.logsRoot }).readEvents())
    if (event.runId === ownRunId) recorded.set(event.seq, event);
  const unflushed =
    child === undefined ? live?.events : live?.childEvents.get(childRunKey(child.runId, child.basePath)!);
  for (const event of unflushed ?? []) recorded.set(event.seq, event);
  // A child that has ended is not followed (its top run may go on for long).
  if (child !== undefined && [...recorded.values()].some((event) => relate(event) === 'end')) {
    following = false;
    live?.subscribers.delete(push);
  }
  let lastSent = options.lastEventId;
  // Events go out in batches (one write per batch): a fast run emits hundreds of events a second, and one awaited
  // write per event would fall behind the engine.
  let batch = '';
  for (const seq of [...recorded.keys()].sort((a, b) => a - b)) {
    if (seq <= lastSent) continue;
    batch += sseMessage(manager.secrets.mask(recorded.get(seq)!), String(seq));
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
  /**
   * The child events replayed from the live run's memory: the very objects the live loop may get again (a child
   * event emitted after this stream subscribed), which it then skips.
   */
  const replayed = new Set<PipelineEvent>();
  const replayChild = async (events: Map<number, PipelineEvent>) => {
    batch = '';
    for (const seq of [...events.keys()].sort((a, b) => a - b)) {
      const event = events.get(seq)!;
      replayed.add(event);
      batch += sseMessage(manager.secrets.mask(event), undefined);
    }
    if (batch !== '' && !aborted) await stream.write(batch);
  };
  if (options.lastEventId === 0) {
    const pendingKeys = new Set(live?.childEvents.keys() ?? []);
    if (child !== undefined) pendingKeys.delete(childRunKey(child.runId, child.basePath)!);
    for (const childDir of listChildRunDirectories(options.logsRoot)) {
      const events = new Map<number, PipelineEvent>();
      for (const event of await createFileRunStore({ logsRoot: childDir }).readEvents())
        events.set(event.seq, event);
      // Events the child has not written yet (a child waiting at a gate), from the live run.
      const below = relative(options.logsRoot, childDir).split(sep).join('/');
      const path = parseChildRunPath(child === undefined ? below : `${child.path}/${below}`);
      const key = path === undefined ? undefined : childRunKey(path.runId, path.basePath);
      for (const event of (key === undefined ? undefined : live?.childEvents.get(key)) ?? [])
        events.set(event.seq, event);
      if (key !== undefined) pendingKeys.delete(key);
      await replayChild(events);
    }
    // Children (and their children) that have written nothing yet, or that live deeper, from memory.
    for (const key of pendingKeys) {
      const events = new Map<number, PipelineEvent>();
      for (const event of live?.childEvents.get(key) ?? [])
        if (child === undefined || relateToChildRun(event, child) !== undefined) events.set(event.seq, event);
      if (events.size > 0) await replayChild(events);
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
      const relation = relate(event);
      if (relation === 'other') {
        // Events of child pipelines (or of a loop_restart's next directory) have their own seq, and no SSE id.
        if (replayed.has(event)) continue;
        if (child === undefined || relateToChildRun(event, child) !== undefined)
          batch += sseMessage(manager.secrets.mask(event), undefined);
      } else if (event.seq > lastSent) {
        batch += sseMessage(manager.secrets.mask(event), String(event.seq));
        lastSent = event.seq;
      }
      if (relation === 'end') {
        ended = true;
        live?.subscribers.delete(push);
        break;
      }
    }
    if (batch !== '' && !aborted) await stream.write(batch);
  }
  if (aborted) return;
  const summary =
    child === undefined ? await manager.summaryOf(runId) : await manager.childDetails(runId, child.path);
  await stream.writeSSE({ event: 'end', data: JSON.stringify({ state: summary.state }) });
}

/** The events that end a run. */
const ENDS: ReadonlySet<string> = new Set(['pipeline.completed', 'pipeline.failed', 'pipeline.cancelled']);

/** Largest batch of SSE text written at once while replaying, in characters. */
const MAX_BATCH_CHARS = 256 * 1024;

/** One SSE message: the event as JSON on one `data:` line (JSON text has no raw newlines), with its id. */
function sseMessage(event: PipelineEvent, id: string | undefined): string {
  return `data: ${JSON.stringify(event)}\n${id === undefined ? '' : `id: ${id}\n`}\n`;
}
