const MARKER = Symbol.for('attractor.error.ContextValueError');

/**
 * Thrown by `Context.set` / `Context.applyUpdates` when a value is not JSON (DESIGN.md "Context values").
 * The run loop turns it into a FAIL outcome of the stage that produced the value.
 */
export class ContextValueError extends Error {
  override readonly name = 'ContextValueError';
  readonly code = 'CONTEXT_VALUE_NOT_JSON';
  /** The context key whose value was rejected. */
  readonly key: string;
  /** Which part of the value is not JSON, e.g. `$.items[2]: a function`. */
  readonly problem: string;
  /** Not retryable: the same handler will return the same value again. */
  readonly retryable = false;
  readonly [MARKER] = true;

  constructor(options: { key: string; problem: string; cause?: unknown }) {
    super(
      `Context value for "${options.key}" is not JSON (${options.problem}). Store only JSON values in the context; put large or binary outputs in the artifact store.`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.key = options.key;
    this.problem = options.problem;
  }

  /** True for a `ContextValueError` from any copy of this package. */
  static isInstance(error: unknown): error is ContextValueError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
