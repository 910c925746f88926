import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * The run queue (PostgreSQL, used through pg-boss) cannot be reached or refused the connection. The message names
 * the setting (`--queue` / `ATTRACTOR_QUEUE_URL`), the location without its password, the cause, and how to fix it.
 */
export class QueueUnavailableError extends AttractorError<'QUEUE_UNAVAILABLE'> {
  override readonly name = 'QueueUnavailableError';
  /** Where the queue was looked for, without a password (`postgres://user@host:5432/db`). */
  readonly location: string;
  /** Retryable: a server that is down may come back. */
  readonly retryable: boolean;

  constructor(options: { message: string; location: string; retryable: boolean; cause?: unknown }) {
    super({ code: 'QUEUE_UNAVAILABLE', message: options.message, cause: options.cause });
    this.location = options.location;
    this.retryable = options.retryable;
  }

  /** True for an error of this class from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(QueueUnavailableError);
}
