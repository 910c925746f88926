/**
 * Totals of a run read from its events: when it ended, how long it took, and the tokens and cost its model calls
 * reported (`agent.usage`). Kept up to date event by event for live runs and folded once over `events.jsonl` for
 * past ones.
 */
import type { PipelineEvent } from '@attractor/engine';
import { legDurationMs } from '@attractor/engine/internal';

/** Token usage and cost of a run, summed over its `agent.usage` events (parallel branches included). */
export interface RunUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** US dollars, when the backend reports a cost (`costUsd` on `agent.usage`); absent otherwise. */
  readonly costUsd?: number;
}

/** What {@link addEventToTotals} accumulates. */
export interface RunTotals {
  /** ISO-8601 timestamp of the event that ended the run (`pipeline.completed|failed|cancelled`). */
  endedAt?: string;
  /**
   * Milliseconds the run executed: the sum of the durations of its legs (`pipeline.completed|failed|cancelled|
   * suspended` at the top), so a run resumed after a crash, a cancel or a human gate it was suspended at counts every
   * leg, not only the last (as `attractor inspect` counts it). Time spent suspended or stopped is not included; set
   * only once the run has ended.
   */
  durationMs?: number;
  /** Milliseconds of the legs that ended before the current one (a suspension, a crash, a cancel). */
  earlierLegsMs?: number;
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
}

/** Fresh, empty totals. */
export function createRunTotals(): RunTotals {
  return { inputTokens: 0, outputTokens: 0 };
}

/**
 * Adds one event to `totals` (mutates it). Events of child pipelines count too: their tokens were spent for this
 * run. A `pipeline.started` after an end (a resume) clears the end; each leg's duration adds to `durationMs`.
 */
export function addEventToTotals(totals: RunTotals, event: PipelineEvent): void {
  switch (event.type) {
    case 'agent.usage': {
      totals.inputTokens += event.inputTokens;
      totals.outputTokens += event.outputTokens;
      // `costUsd` is reported by backends that know their prices; older events lack it.
      const cost = (event as { readonly costUsd?: unknown }).costUsd;
      if (typeof cost === 'number' && Number.isFinite(cost)) totals.costUsd = (totals.costUsd ?? 0) + cost;
      return;
    }
    case 'pipeline.started':
      if (event.branchPath === undefined) {
        delete totals.endedAt;
        delete totals.durationMs;
      }
      return;
    default: {
      const legMs = legDurationMs(event);
      if (legMs === undefined) return;
      totals.earlierLegsMs = (totals.earlierLegsMs ?? 0) + legMs;
      // A suspension ends a leg, not the run: it resumes at the gate's answer.
      if (event.type === 'pipeline.suspended') return;
      totals.endedAt = event.timestamp;
      totals.durationMs = totals.earlierLegsMs;
      return;
    }
  }
}

/** The summary fields of `totals`: `endedAt`, `durationMs` and `usage` (only when some tokens were reported). */
export function totalsSummaryFields(totals: RunTotals): {
  endedAt?: string;
  durationMs?: number;
  usage?: RunUsage;
} {
  const used = totals.inputTokens > 0 || totals.outputTokens > 0 || totals.costUsd !== undefined;
  return {
    ...(totals.endedAt === undefined ? {} : { endedAt: totals.endedAt }),
    ...(totals.durationMs === undefined ? {} : { durationMs: totals.durationMs }),
    ...(used
      ? {
          usage: {
            inputTokens: totals.inputTokens,
            outputTokens: totals.outputTokens,
            ...(totals.costUsd === undefined ? {} : { costUsd: totals.costUsd }),
          },
        }
      : {}),
  };
}
