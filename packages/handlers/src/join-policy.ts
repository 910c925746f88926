/**
 * Join policies of the parallel handler (spec §4.8, docs/architecture.md "Parallel results"), as pure
 * decisions.
 */
import type { JoinPolicy } from '@attractor/graph';

/** The counts a join decision looks at. */
export interface JoinCounts {
  /** Number of branches. */
  readonly total: number;
  /** Branches that ended with a success status (success, partial_success or a custom word). */
  readonly succeeded: number;
  /** Branches that failed (including timed-out branches). */
  readonly failed: number;
}

/** Options of {@link joinStatus} and {@link joinSettled}. */
export interface JoinDecisionOptions extends JoinCounts {
  readonly policy: JoinPolicy;
  /** Successes `k_of_n` needs (`join_k`). Default: all branches. */
  readonly k?: number;
}

/** Successes needed by a policy: wait_all → all, first_success → 1, k_of_n → k, quorum → a strict majority. */
export function requiredSuccesses(options: Pick<JoinDecisionOptions, 'policy' | 'k' | 'total'>): number {
  switch (options.policy) {
    case 'wait_all':
      return options.total;
    case 'first_success':
      return Math.min(1, options.total);
    case 'k_of_n':
      return Math.min(options.k ?? options.total, options.total);
    case 'quorum':
      return Math.floor(options.total / 2) + 1;
  }
}

/**
 * Whether the join is decided before every branch ended, so the remaining branches can be cancelled:
 * never for `wait_all`; for the others once the needed successes arrived or can no longer arrive.
 */
export function joinSettled(options: JoinDecisionOptions): boolean {
  if (options.policy === 'wait_all') return options.succeeded + options.failed >= options.total;
  const needed = requiredSuccesses(options);
  const stillPossible = options.total - options.failed;
  return options.succeeded >= needed || stillPossible < needed;
}

/**
 * The status of the parallel node once the branches ended (docs/architecture.md "Parallel results"):
 * `wait_all`: all succeed → success, some fail → partial_success, all fail → fail;
 * `first_success`, `k_of_n`, `quorum`: enough successes → success, else fail.
 */
export function joinStatus(options: JoinDecisionOptions): 'success' | 'partial_success' | 'fail' {
  if (options.policy === 'wait_all') {
    if (options.total === 0 || options.succeeded === options.total) return 'success';
    return options.succeeded === 0 ? 'fail' : 'partial_success';
  }
  return options.succeeded >= requiredSuccesses(options) ? 'success' : 'fail';
}
