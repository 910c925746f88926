/**
 * Totals of a run read from its events: when it ended, how long it took, and the tokens and cost its model calls
 * reported (`agent.usage`). Kept up to date event by event for live runs and folded once over `events.jsonl` for
 * past ones.
 */
import type { PipelineEvent, RunIndexEntry } from '@attractor/engine';
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
  /** The run id of the first top-level `pipeline.started`: the run these totals are of (not a child pipeline). */
  runId?: string;
  /** A forked run's origin, from its first `pipeline.started` (`forkedFrom`). */
  forkedFrom?: { readonly runId: string; readonly node: string; readonly visit: number };
  /**
   * How many times the run was resumed: its top-level `pipeline.started` events with `resumed`, except a fork's first
   * and one continuing a run suspended at a gate (a worker suspends the run there; the answer continues it).
   */
  resumes?: number;
  /** Whether the run's last leg ended with `pipeline.suspended` (the next start is the gate's answer, no resume). */
  suspended?: boolean;
  /**
   * Failed branches of each parallel node and failed items of each `foreach` node, by `runId`, branch path and node:
   * the latest `parallel.completed` / `foreach.completed` of each node counts (a node run again replaces its count).
   */
  failures?: Map<string, { readonly kind: 'branches' | 'items'; readonly count: number }>;
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
        totals.runId ??= event.runId;
        if (event.runId === totals.runId) {
          if (event.forkedFrom !== undefined) totals.forkedFrom ??= event.forkedFrom;
          else if (event.resumed && totals.suspended !== true) totals.resumes = (totals.resumes ?? 0) + 1;
          delete totals.suspended;
        }
      }
      return;
    case 'parallel.completed':
    case 'foreach.completed': {
      totals.failures ??= new Map();
      totals.failures.set(`${event.runId}\u0000${(event.branchPath ?? []).join('/')}\u0000${event.nodeId}`, {
        kind: event.type === 'parallel.completed' ? 'branches' : 'items',
        count: event.failureCount,
      });
      return;
    }
    default: {
      const legMs = legDurationMs(event);
      if (legMs === undefined) return;
      totals.earlierLegsMs = (totals.earlierLegsMs ?? 0) + legMs;
      // A suspension ends a leg, not the run: it goes on at the gate's answer.
      if (event.type === 'pipeline.suspended') {
        totals.suspended = true;
        return;
      }
      delete totals.suspended;
      totals.endedAt = event.timestamp;
      totals.durationMs = totals.earlierLegsMs;
      return;
    }
  }
}

/** What {@link totalsSummaryFields} and {@link indexSummaryFields} give: the totals fields of a `RunSummary`. */
export interface TotalsSummaryFields {
  endedAt?: string;
  durationMs?: number;
  usage?: RunUsage;
  forkedFrom?: { readonly runId: string; readonly node: string; readonly visit: number };
  resumes?: number;
  failedBranches?: number;
  failedItems?: number;
}

/**
 * The summary fields of `totals`: `endedAt`, `durationMs`, `usage` (only when some tokens were reported), and when
 * they apply `forkedFrom`, `resumes`, `failedBranches` and `failedItems` (see `RunSummary`).
 */
export function totalsSummaryFields(totals: RunTotals): TotalsSummaryFields {
  const used = totals.inputTokens > 0 || totals.outputTokens > 0 || totals.costUsd !== undefined;
  let failedBranches = 0;
  let failedItems = 0;
  for (const failure of totals.failures?.values() ?? []) {
    if (failure.kind === 'branches') failedBranches += failure.count;
    else failedItems += failure.count;
  }
  return {
    ...(totals.forkedFrom === undefined
      ? {}
      : {
          forkedFrom: {
            runId: totals.forkedFrom.runId,
            node: totals.forkedFrom.node,
            visit: totals.forkedFrom.visit,
          },
        }),
    ...(totals.resumes === undefined ? {} : { resumes: totals.resumes }),
    ...(failedBranches === 0 ? {} : { failedBranches }),
    ...(failedItems === 0 ? {} : { failedItems }),
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

/**
 * The same summary fields as {@link totalsSummaryFields}, from a run catalog's index entry (a shared run store's list,
 * which keeps these totals as events are appended instead of reading every run's events): `durationMs` summed over
 * the legs once the run ended, `usage` when tokens or a cost were recorded, `forkedFrom` when the entry knows the
 * fork's stage (`forkedAt`). A catalog that records none of them (the file catalog) gives `endedAt` only. Pure.
 */
export function indexSummaryFields(entry: RunIndexEntry): TotalsSummaryFields {
  const inputTokens = entry.inputTokens ?? 0;
  const outputTokens = entry.outputTokens ?? 0;
  return {
    ...(entry.forkedFrom === undefined || entry.forkedAt === undefined
      ? {}
      : { forkedFrom: { runId: entry.forkedFrom, node: entry.forkedAt.node, visit: entry.forkedAt.visit } }),
    ...(entry.resumes === undefined ? {} : { resumes: entry.resumes }),
    ...(entry.failedBranches === undefined ? {} : { failedBranches: entry.failedBranches }),
    ...(entry.failedItems === undefined ? {} : { failedItems: entry.failedItems }),
    ...(entry.endedAt === undefined ? {} : { endedAt: entry.endedAt }),
    ...(entry.endedAt === undefined || entry.durationMs === undefined
      ? {}
      : { durationMs: entry.durationMs }),
    ...(inputTokens > 0 || outputTokens > 0 || entry.costUsd !== undefined
      ? {
          usage: {
            inputTokens,
            outputTokens,
            ...(entry.costUsd === undefined ? {} : { costUsd: entry.costUsd }),
          },
        }
      : {}),
  };
}
