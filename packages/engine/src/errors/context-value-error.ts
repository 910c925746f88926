import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * Thrown by `Context.set` / `Context.applyUpdates` when a value is not JSON
 * (docs/architecture.md "Context values"). The run loop turns it into a FAIL outcome of the stage that
 * produced the value.
 */
export class ContextValueError extends AttractorError<'CONTEXT_VALUE_NOT_JSON'> {
  override readonly name = 'ContextValueError';
  /** The context key whose value was rejected. */
  readonly key: string;
  /** Which part of the value is not JSON, e.g. `$.items[2]: a function`. */
  readonly problem: string;
  /** Not retryable: the same handler will return the same value again. */
  readonly retryable = false;

  constructor(options: { key: string; problem: string; cause?: unknown }) {
    super({
      code: 'CONTEXT_VALUE_NOT_JSON',
      message: `Context value for "${options.key}" is not JSON (${options.problem}). Store only JSON values in the context; put large or binary outputs in the artifact store.`,
      cause: options.cause,
    });
    this.key = options.key;
    this.problem = options.problem;
  }

  /** True for a `ContextValueError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(ContextValueError);
}
