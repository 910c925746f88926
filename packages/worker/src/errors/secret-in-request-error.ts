import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * `enqueueRun` refused a request holding a secret where the queue cannot mask it: inside a value whose key does not
 * name a secret (a token in `repo_url`). The queue's table never stores a secret; a value under a secret-named key
 * (`deploy_token`) is stored masked and each worker takes it from its own environment instead.
 */
export class SecretInRequestError extends AttractorError<'SECRET_IN_REQUEST'> {
  override readonly name = 'SecretInRequestError';
  /** Where the secret is, e.g. `context.repo_url`. */
  readonly path: string;
  readonly retryable = false;

  constructor(options: { message: string; path: string }) {
    super({ code: 'SECRET_IN_REQUEST', message: options.message });
    this.path = options.path;
  }

  /** True for an error of this class from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(SecretInRequestError);
}
