/**
 * Heuristic candidate selection of the fan-in handler (spec §4.9 `heuristic_select`).
 */
import type { ParallelBranchResult } from './parallel-results.js';

/** Rank of a branch status: success (and custom success words) 0, partial_success 1, retry 2, fail 3, cancelled 4. */
export function statusRank(status: string): number {
  switch (status) {
    case 'partial_success':
      return 1;
    case 'retry':
      return 2;
    case 'fail':
      return 3;
    case 'cancelled':
    case 'skipped':
      return 4;
    default:
      return 0;
  }
}

/** Whether a branch status counts as a successful candidate (rank 0 or 1). */
export function isSuccessfulCandidate(status: string): boolean {
  return statusRank(status) <= 1;
}

function scoreOf(result: ParallelBranchResult): number {
  const score = result.context_updates.score;
  return typeof score === 'number' && Number.isFinite(score) ? score : 0;
}

/**
 * The best candidate (spec §4.9): lowest status rank, then highest numeric `score` in the branch's context
 * updates (0 when absent), then the smallest branch id. Undefined for an empty list.
 */
export function selectBestCandidate(
  results: readonly ParallelBranchResult[],
): ParallelBranchResult | undefined {
  return [...results].sort(
    (left, right) =>
      statusRank(left.status) - statusRank(right.status) ||
      scoreOf(right) - scoreOf(left) ||
      (left.branch < right.branch ? -1 : left.branch > right.branch ? 1 : 0),
  )[0];
}
