const MARKER = Symbol.for('attractor.error.QueueUnavailableError');

/**
 * The run queue (PostgreSQL, used through pg-boss) cannot be reached or refused the connection. The message names
 * the setting (`--queue` / `ATTRACTOR_QUEUE_URL`), the location without its password, the cause, and how to fix it.
 */
export class QueueUnavailableError extends Error {
  override readonly name = 'QueueUnavailableError';
  readonly code = 'QUEUE_UNAVAILABLE';
  /** Where the queue was looked for, without a password (`postgres://user@host:5432/db`). */
  readonly location: string;
  /** Retryable: a server that is down may come back. */
  readonly retryable: boolean;
  readonly [MARKER] = true;

  constructor(options: { message: string; location: string; retryable: boolean; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.location = options.location;
    this.retryable = options.retryable;
  }

  /** True for a `QueueUnavailableError` from any copy of this package. */
  static isInstance(error: unknown): error is QueueUnavailableError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
