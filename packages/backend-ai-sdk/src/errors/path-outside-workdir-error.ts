import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * A coding tool was asked for a path outside the run's working directory (directly, through `..`, or through a
 * symbolic link). The tool call fails with this message and the model may try another path; the stage goes on.
 */
export class PathOutsideWorkdirError extends AttractorError<'PATH_OUTSIDE_WORKDIR'> {
  override readonly name = 'PathOutsideWorkdirError';
  /** The path as the model gave it. */
  readonly requestedPath: string;
  /** The working directory (real path) that tools are confined to. */
  readonly workdir: string;
  readonly retryable = false;

  constructor(options: { requestedPath: string; workdir: string; reason?: string }) {
    super({
      code: 'PATH_OUTSIDE_WORKDIR',
      message: `Refused: "${options.requestedPath}" is outside the working directory ${options.workdir}${options.reason === undefined ? '' : ` (${options.reason})`}. Use a path inside it.`,
    });
    this.requestedPath = options.requestedPath;
    this.workdir = options.workdir;
  }

  /** True for a `PathOutsideWorkdirError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(PathOutsideWorkdirError);
}
