/**
 * Conversion between {@link Outcome} and the `status.json` file of spec Appendix C.
 */
import type { Outcome } from './outcome.js';
import type { StageStatusFile } from './run-store.js';

/** The `status.json` form of an outcome (spec Appendix C field names, plus `failure_reason` and `retryable`). */
export function outcomeToStatusFile(outcome: Outcome): StageStatusFile {
  return {
    outcome: outcome.status,
    ...(outcome.preferredLabel === undefined ? {} : { preferred_label: outcome.preferredLabel }),
    ...(outcome.suggestedNextIds === undefined ? {} : { suggested_next_ids: outcome.suggestedNextIds }),
    ...(outcome.contextUpdates === undefined ? {} : { context_updates: outcome.contextUpdates }),
    ...(outcome.notes === undefined ? {} : { notes: outcome.notes }),
    ...(outcome.failureReason === undefined ? {} : { failure_reason: outcome.failureReason }),
    ...(outcome.retryable === undefined ? {} : { retryable: outcome.retryable }),
  };
}

/**
 * The outcome a `status.json` describes (spec Appendix C). `outcome` is required; a file without it (or with a
 * non-string) yields a FAIL outcome that says so.
 */
export function statusFileToOutcome(file: StageStatusFile): Outcome {
  if (typeof file !== 'object' || file === null || typeof file.outcome !== 'string' || file.outcome === '') {
    return {
      status: 'fail',
      failureReason:
        'status.json has no "outcome" field (expected "success", "fail", "retry", "partial_success" or a custom word)',
      retryable: false,
    };
  }
  return {
    status: file.outcome,
    ...(typeof file.preferred_label === 'string' ? { preferredLabel: file.preferred_label } : {}),
    ...(Array.isArray(file.suggested_next_ids) ? { suggestedNextIds: file.suggested_next_ids } : {}),
    ...(typeof file.context_updates === 'object' && file.context_updates !== null
      ? { contextUpdates: file.context_updates }
      : {}),
    ...(typeof file.notes === 'string' ? { notes: file.notes } : {}),
    ...(typeof file.failure_reason === 'string' ? { failureReason: file.failure_reason } : {}),
    ...(typeof file.retryable === 'boolean' ? { retryable: file.retryable } : {}),
  };
}
