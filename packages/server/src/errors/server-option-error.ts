import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * Thrown at start by `startServer`, `openServerApp`, `createServerApp` and `new RunManager` when an option's value is
 * out of its range (`heartbeatMs` of 0, a negative or fractional `endedRunsKept`): nothing has started. The message
 * names the option, the value given and the allowed range.
 */
export class ServerOptionError extends AttractorError<'SERVER_OPTION_INVALID'> {
  override readonly name = 'ServerOptionError';
  /** The option, e.g. `heartbeatMs`. */
  readonly option: string;
  /** The value given. */
  readonly value: unknown;
  readonly retryable = false;

  constructor(options: { option: string; value: unknown; message: string }) {
    super({ code: 'SERVER_OPTION_INVALID', message: options.message });
    this.option = options.option;
    this.value = options.value;
  }

  /** True for a `ServerOptionError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(ServerOptionError);
}
