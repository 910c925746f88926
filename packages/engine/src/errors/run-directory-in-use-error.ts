const MARKER = Symbol.for('attractor.error.RunDirectoryInUseError');

/** Thrown (as a rejection) by `runPipeline` when the run directory already holds a run (it has a checkpoint). */
export class RunDirectoryInUseError extends Error {
  override readonly name = 'RunDirectoryInUseError';
  readonly code = 'RUN_DIRECTORY_IN_USE';
  readonly logsRoot: string;
  readonly retryable = false;
  readonly [MARKER] = true;

  constructor(options: { logsRoot: string }) {
    super(
      `Run directory ${options.logsRoot} already holds a run (it has a checkpoint.json). Resume it with resumePipeline (CLI: attractor resume), or start a new run in another directory.`,
    );
    this.logsRoot = options.logsRoot;
  }

  /** True for a `RunDirectoryInUseError` from any copy of this package. */
  static isInstance(error: unknown): error is RunDirectoryInUseError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
