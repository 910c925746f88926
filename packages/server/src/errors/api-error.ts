/**
 * The one error type of the HTTP API: a status, a stable code and a message a person can act on. Route handlers
 * throw it; the app's error handler turns it into `{ "error": { "code", "message", ...details } }`.
 */
import { AttractorError, isErrorOf } from '@attractor/errors';

/** The stable codes of {@link ApiError}, one per kind of refusal. */
export type ApiErrorCode =
  | 'UNAUTHORIZED'
  | 'BODY_TOO_LARGE'
  | 'INVALID_REQUEST'
  | 'INVALID_PIPELINE'
  | 'INVALID_INPUTS'
  | 'TOOLS_NOT_ALLOWED'
  | 'PIPELINE_FILE_NOT_FOUND'
  | 'RUN_NOT_FOUND'
  | 'RUN_NOT_RUNNING'
  | 'RUN_ALREADY_RUNNING'
  | 'RUN_ACTIVE'
  | 'RESUME_REFUSED'
  | 'FORK_REFUSED'
  | 'SOURCE_CHANGED'
  | 'QUESTION_NOT_FOUND'
  | 'INVALID_ANSWER'
  | 'NOT_FOUND'
  | 'BACKEND_UNAVAILABLE'
  | 'SERVER_STOPPING'
  | 'SERVER_BUSY'
  | 'FILE_REFUSED'
  | 'LIMIT_EXCEEDED'
  | 'FORBIDDEN_HOST'
  | 'NO_WORKSPACE'
  | 'WORKSPACE_UNAVAILABLE'
  | 'ARCHIVE_NOT_SUPPORTED'
  | 'INTERNAL';

/** Options of {@link ApiError}'s constructor. */
export interface ApiErrorOptions {
  /** HTTP status, e.g. 400. */
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly message: string;
  /** Extra JSON fields for the error body (e.g. `diagnostics`, `nodes`). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Sent as the `Retry-After` header (seconds): when a refused request may be tried again (503). */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

/**
 * A refused or failed API request (spec §9.5). Serialised as `{ error: { code, message, ...details } }` with
 * `status` as the HTTP status.
 */
export class ApiError extends AttractorError<ApiErrorCode> {
  override readonly name = 'ApiError';
  /** HTTP status code. */
  readonly status: number;
  /** Extra fields of the error body. */
  readonly details: Readonly<Record<string, unknown>>;
  /** The `Retry-After` of the response, in seconds, when there is one. */
  readonly retryAfterSeconds?: number;

  constructor(options: ApiErrorOptions) {
    super({ code: options.code, message: options.message, cause: options.cause });
    this.status = options.status;
    this.details = options.details ?? {};
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The JSON body of the error response. */
  toJson(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }

  /** True for a `ApiError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(ApiError);
}
