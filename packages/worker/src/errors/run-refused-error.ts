import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * A worker refused to execute a queued run: its request is not signed with the worker's queue key, it asks for
 * something the worker's policy does not allow (another LLM endpoint, tool stages, files outside the allowed
 * directories), or a secret it needs is missing from the worker's environment. The message says which, and how to
 * fix it; the run ends failed with it (a retry would change nothing). Nothing of the run was executed.
 */
export class RunRefusedError extends AttractorError<'RUN_REFUSED'> {
  override readonly name = 'RunRefusedError';
  readonly retryable = false;

  constructor(options: { message: string; cause?: unknown }) {
    super({ code: 'RUN_REFUSED', message: options.message, cause: options.cause });
  }

  /** True for an error of this class from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(RunRefusedError);
}
