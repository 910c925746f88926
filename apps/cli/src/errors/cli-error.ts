import { AttractorError, isErrorOf } from '@attractor/errors';

/** Stable codes of {@link CliError}. */
export type CliErrorCode =
  | 'CLI_USAGE'
  | 'CLI_INVALID_INPUT'
  | 'CLI_FILE_NOT_FOUND'
  | 'CLI_MISSING_API_KEY'
  | 'CLI_BACKEND_MISSING'
  /** The run store or the queue (`--store`, `--queue`) cannot be reached or refused the connection. */
  | 'CLI_SERVICE_UNAVAILABLE';

/** Options of the {@link CliError} constructor. */
export interface CliErrorOptions {
  readonly code: CliErrorCode;
  /** What happened, where, and what to do. Printed as is, without a stack trace. */
  readonly message: string;
  /** The process exit code. Default: 2 (usage or invalid input). */
  readonly exitCode?: number;
  readonly cause?: unknown;
}

/**
 * A user error the CLI reports with its message alone (no stack trace) and exits with `exitCode`:
 * a bad option, a missing file, a DOT file with errors, a missing API key.
 */
export class CliError extends AttractorError<CliErrorCode> {
  override readonly name = 'CliError';
  /** The process exit code, 2 unless stated otherwise. */
  readonly exitCode: number;

  constructor(options: CliErrorOptions) {
    super({ code: options.code, message: options.message, cause: options.cause });
    this.exitCode = options.exitCode ?? 2;
  }

  /** True for a `CliError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(CliError);
}
