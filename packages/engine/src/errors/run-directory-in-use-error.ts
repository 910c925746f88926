import { AttractorError, isErrorOf } from '@attractor/errors';

/** Thrown (as a rejection) by `runPipeline` when the run directory already holds a run (it has a checkpoint). */
export class RunDirectoryInUseError extends AttractorError<'RUN_DIRECTORY_IN_USE'> {
  override readonly name = 'RunDirectoryInUseError';
  readonly logsRoot: string;
  readonly retryable = false;

  constructor(options: { logsRoot: string }) {
    super({
      code: 'RUN_DIRECTORY_IN_USE',
      message: `Run directory ${options.logsRoot} already holds a run (it has a checkpoint.json). Resume it with resumePipeline (CLI: attractor resume), or start a new run in another directory.`,
    });
    this.logsRoot = options.logsRoot;
  }

  /** True for a `RunDirectoryInUseError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(RunDirectoryInUseError);
}
