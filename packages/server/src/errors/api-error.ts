/**
 * The one error type of the HTTP API: a status, a stable code and a message a person can act on. Route handlers
 * throw it; the app's error handler turns it into `{ "error": { "code", "message", ...details } }`.
 */

const MARKER = Symbol.for('attractor.error.ApiError');

/** The stable codes of {@link ApiError}, one per kind of refusal. */
export type ApiErrorCode =
  | 'UNAUTHORIZED'
  | 'BODY_TOO_LARGE'
  | 'INVALID_REQUEST'
  | 'INVALID_PIPELINE'
  | 'TOOLS_NOT_ALLOWED'
  | 'PIPELINE_FILE_NOT_FOUND'
  | 'RUN_NOT_FOUND'
  | 'RUN_NOT_RUNNING'
  | 'RUN_ALREADY_RUNNING'
  | 'RESUME_REFUSED'
  | 'FORK_REFUSED'
  | 'QUESTION_NOT_FOUND'
  | 'INVALID_ANSWER'
  | 'NOT_FOUND'
  | 'BACKEND_UNAVAILABLE'
  | 'SERVER_STOPPING'
  | 'FILE_REFUSED'
  | 'LIMIT_EXCEEDED'
  | 'FORBIDDEN_HOST'
  | 'INTERNAL';

/** Options of {@link ApiError}'s constructor. */
export interface ApiErrorOptions {
  /** HTTP status, e.g. 400. */
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly message: string;
  /** Extra JSON fields for the error body (e.g. `diagnostics`, `nodes`). */
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/**
 * A refused or failed API request (spec §9.5). Serialised as `{ error: { code, message, ...details } }` with
 * `status` as the HTTP status.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status code. */
  readonly status: number;
  /** Stable machine-readable code. */
  readonly code: ApiErrorCode;
  /** Extra fields of the error body. */
  readonly details: Readonly<Record<string, unknown>>;
  readonly [MARKER] = true;

  constructor(options: ApiErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.code = options.code;
    this.details = options.details ?? {};
  }

  /** Whether `error` is an {@link ApiError} (by marker, also across package copies). */
  static isInstance(error: unknown): error is ApiError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }

  /** The JSON body of the error response. */
  toJson(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}
