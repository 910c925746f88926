const MARKER = Symbol.for('attractor.error.AnswerRefusedError');

/**
 * An answer to a human gate of a queued run was refused: the run is unknown, is not waiting at a gate, or the
 * answer names none of the question's options. The message says which and lists the options.
 */
export class AnswerRefusedError extends Error {
  override readonly name = 'AnswerRefusedError';
  readonly code = 'ANSWER_REFUSED';
  /** The run the answer was for. */
  readonly runId: string;
  /** Why: no such run, the run waits for no answer, or the answer matches no option. */
  readonly reason: 'unknown_run' | 'not_waiting' | 'no_such_option';
  readonly retryable = false;
  readonly [MARKER] = true;

  constructor(options: {
    message: string;
    runId: string;
    reason: 'unknown_run' | 'not_waiting' | 'no_such_option';
  }) {
    super(options.message);
    this.runId = options.runId;
    this.reason = options.reason;
  }

  /** True for an `AnswerRefusedError` from any copy of this package. */
  static isInstance(error: unknown): error is AnswerRefusedError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
