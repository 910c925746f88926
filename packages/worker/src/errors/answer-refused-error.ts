import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * An answer to a human gate of a queued run was refused: the run is unknown, is not waiting at a gate, or the
 * answer names none of the question's options. The message says which and lists the options.
 */
export class AnswerRefusedError extends AttractorError<'ANSWER_REFUSED'> {
  override readonly name = 'AnswerRefusedError';
  /** The run the answer was for. */
  readonly runId: string;
  /** Why: no such run, the run waits for no answer, or the answer matches no option. */
  readonly reason: 'unknown_run' | 'not_waiting' | 'no_such_option';
  readonly retryable = false;

  constructor(options: {
    message: string;
    runId: string;
    reason: 'unknown_run' | 'not_waiting' | 'no_such_option';
  }) {
    super({ code: 'ANSWER_REFUSED', message: options.message });
    this.runId = options.runId;
    this.reason = options.reason;
  }

  /** True for an error of this class from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(AnswerRefusedError);
}
