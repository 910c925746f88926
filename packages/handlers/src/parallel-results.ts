/**
 * The `parallel.results` context value (DESIGN.md "Parallel results"): one entry per branch in edge order.
 */
import type { JsonValue } from '@attractor/engine';

/** One branch in `parallel.results`. */
export interface ParallelBranchResult {
  /** The branch id (the fan-out edge's target). */
  readonly branch: string;
  /**
   * The branch's status: its last node's status when it ran to the join (`success`, `partial_success`, a custom
   * word), `fail` when it failed or timed out, `cancelled` when the join cancelled it.
   */
  readonly status: string;
  readonly notes: string;
  readonly failure_reason: string;
  /** `last_response` of the branch context ('' when no stage set one). */
  readonly last_response: string;
  /** Context keys the branch added or changed (engine bookkeeping and `parallel.*` keys left out). */
  readonly context_updates: Readonly<Record<string, JsonValue>>;
}

/** Reads `parallel.results` from a context value; undefined when it is missing or not an array of results. */
export function readParallelResults(value: JsonValue | undefined): ParallelBranchResult[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const results: ParallelBranchResult[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
    const record = item as Record<string, JsonValue>;
    if (typeof record.branch !== 'string' || typeof record.status !== 'string') return undefined;
    const updates = record.context_updates;
    results.push({
      branch: record.branch,
      status: record.status,
      notes: typeof record.notes === 'string' ? record.notes : '',
      failure_reason: typeof record.failure_reason === 'string' ? record.failure_reason : '',
      last_response: typeof record.last_response === 'string' ? record.last_response : '',
      context_updates:
        typeof updates === 'object' && updates !== null && !Array.isArray(updates)
          ? (updates as Readonly<Record<string, JsonValue>>)
          : {},
    });
  }
  return results;
}
