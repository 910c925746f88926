/**
 * The result of executing one node (spec §5.2) and the stage statuses that drive routing.
 */
import type { JsonValue } from './json-value.js';

/**
 * The built-in stage statuses of spec §5.2, spelled as in DOT conditions (`outcome=partial_success`).
 *
 * - `success`: the stage did its work; routing proceeds and the retry counter resets.
 * - `partial_success`: done with caveats; treated as success for routing, retries and goal gates.
 * - `retry`: the stage asks to be executed again (within `max_retries`).
 * - `fail`: the stage failed; the engine retries it when `max_retries > 0`
 *   (docs/architecture.md "Retrying FAIL"), then follows failure routing (spec §3.7).
 * - `skipped`: the stage did nothing; routing proceeds without recording an outcome for goal gates.
 */
export type StageStatus = 'success' | 'partial_success' | 'retry' | 'fail' | 'skipped';

/**
 * A stage status as handlers may report it: one of {@link StageStatus} or a custom outcome word
 * (`process`, `done`, ...). A custom word routes like any value of `outcome` in conditions and counts as
 * success for retries and goal gates (docs/architecture.md "Outcomes").
 */
export type OutcomeStatus = StageStatus | (string & {});

/**
 * What a handler returns (spec §5.2, Appendix C). All fields but `status` are optional.
 *
 * @example
 * const outcome: Outcome = { status: 'success', contextUpdates: { 'context.plan': 'three steps' } };
 */
export interface Outcome {
  /** The stage status, or a custom outcome word. */
  readonly status: OutcomeStatus;
  /** An edge label to prefer when no condition matched (spec §3.3 step 2); normalised before comparison. */
  readonly preferredLabel?: string;
  /** Target node ids to prefer when no label matched (spec §3.3 step 3), in priority order. */
  readonly suggestedNextIds?: readonly string[];
  /**
   * Key-value pairs merged into the run context after the stage (spec §5.1). Values must be JSON: a non-JSON
   * value fails the stage with a reason naming the key.
   */
  readonly contextUpdates?: Readonly<Record<string, JsonValue>>;
  /** A human-readable summary of what the stage did. */
  readonly notes?: string;
  /** Why the stage failed or asked for a retry (status `fail` or `retry`). */
  readonly failureReason?: string;
  /**
   * Whether a `fail` may be retried. Default: true. `false` (an authentication error, a bad request) fails the
   * stage at once, whatever `max_retries` says (spec Appendix D, docs/architecture.md "Retrying FAIL").
   */
  readonly retryable?: boolean;
  /**
   * Continue the walk at this node instead of selecting one of the node's outgoing edges, whatever the status.
   * For handlers that executed their outgoing edges themselves: the parallel handler sets it to the join node
   * (docs/architecture.md "Parallel fan-out": the join is not a direct edge target of the parallel node). Not
   * persisted in `status.json`; the checkpoint records the node the walk continues at.
   */
  readonly continueAt?: string;
}

/** The statuses that count as success for retries and goal gates: everything except `retry`, `fail` and `skipped`. */
export function isSuccessStatus(status: OutcomeStatus): boolean {
  return status !== 'fail' && status !== 'retry' && status !== 'skipped';
}
