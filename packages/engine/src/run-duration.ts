/**
 * How long a run executed, read from its events: the sum of its legs. A leg is one invocation of the run (the first
 * `runPipeline`, then each `resumePipeline`); a run resumed after a crash, a cancel, a failure or a human gate it was
 * suspended at has several. See spec §9.6 and docs/architecture.md "Run directory" (`events.jsonl` keeps
 * every leg's events).
 */
import type { PipelineEvent } from './pipeline-event.js';

/**
 * The top-level event types that end a leg: each carries that leg's wall time in `durationMs`. A leg starts with
 * `pipeline.started` (`resumed: true` for every leg after the first).
 */
const LEG_END_TYPES: ReadonlySet<PipelineEvent['type']> = new Set([
  'pipeline.completed',
  'pipeline.failed',
  'pipeline.cancelled',
  'pipeline.suspended',
]);

/** Options of {@link legDurationMs}. */
export interface LegDurationOptions {
  /**
   * The branch path of the run's own top-level events: `[]` for a run's own log (its top events have no
   * `branchPath`); a child pipeline's log carries its parent's path (`['child:<node>']`) on every event. Default: `[]`.
   */
  readonly basePath?: readonly string[];
}

/**
 * The wall time of the leg that `event` ends, in milliseconds, or undefined when `event` ends no leg of the run.
 * Ends of a leg are the run's own top-level `pipeline.completed`, `pipeline.failed`, `pipeline.cancelled` and
 * `pipeline.suspended` (a worker stopped the run at a human gate); the same events of parallel branches and child
 * pipelines (a longer `branchPath`) end no leg of this run. For code that folds events one at a time (a live view);
 * {@link runDurationMs} sums a whole log. See spec §9.6.
 */
export function legDurationMs(event: PipelineEvent, options: LegDurationOptions = {}): number | undefined {
  if (!LEG_END_TYPES.has(event.type)) return undefined;
  if ((event.branchPath?.length ?? 0) !== (options.basePath?.length ?? 0)) return undefined;
  return (event as { readonly durationMs: number }).durationMs;
}

/**
 * How long a run executed, in milliseconds: the sum of the wall times of its legs, from a run's events in log order
 * (`RunStore.readEvents()`, or the events received so far). A leg begins at a top-level `pipeline.started` and ends at
 * the run's `pipeline.completed`, `pipeline.failed`, `pipeline.cancelled` or `pipeline.suspended`, whose `durationMs`
 * it adds. A run still executing counts only its ended legs (the current leg has no duration yet); time spent
 * suspended, stopped or waiting in a queue between legs counts for nothing. A child pipeline's own log works too: the
 * branch path of its first `pipeline.started` is taken as its top level. 0 for a run with no ended leg.
 *
 * @example
 * const events = await runStore.readEvents();
 * console.log(`ran for ${runDurationMs(events)} ms`);
 */
export function runDurationMs(events: readonly PipelineEvent[]): number {
  const first = events.find((event) => event.type === 'pipeline.started');
  const options: LegDurationOptions = { basePath: first?.branchPath ?? [] };
  let totalMs = 0;
  for (const event of events) totalMs += legDurationMs(event, options) ?? 0;
  return totalMs;
}
