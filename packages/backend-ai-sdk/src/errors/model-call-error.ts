import { AttractorError, isErrorOf } from '@attractor/errors';

/** What kind of failure a model call had (spec Appendix D). */
export type ModelCallFailure =
  | 'rate_limited'
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'authentication'
  | 'permission'
  | 'bad_request'
  | 'not_found'
  | 'other';

/**
 * A call to the LLM provider failed. `retryable` follows spec Appendix D (429, 5xx, network errors and timeouts
 * are retryable; 400, 401, 403, 404 are terminal), mapped from the AI SDK's `APICallError`; the engine's retry
 * policy reads only that field. The message says what happened and, for terminal failures, what to fix.
 */
export class ModelCallError extends AttractorError<'MODEL_CALL_FAILED'> {
  override readonly name = 'ModelCallError';
  readonly failure: ModelCallFailure;
  readonly retryable: boolean;
  /** The HTTP status, when the provider answered. */
  readonly statusCode?: number;
  /** Provider name (`openai`, ...) and model id of the call. */
  readonly provider: string;
  readonly modelId: string;

  constructor(options: {
    failure: ModelCallFailure;
    retryable: boolean;
    statusCode?: number;
    provider: string;
    modelId: string;
    message: string;
    cause?: unknown;
  }) {
    super({ code: 'MODEL_CALL_FAILED', message: options.message, cause: options.cause });
    this.failure = options.failure;
    this.retryable = options.retryable;
    if (options.statusCode !== undefined) this.statusCode = options.statusCode;
    this.provider = options.provider;
    this.modelId = options.modelId;
  }

  /** True for a `ModelCallError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(ModelCallError);
}
