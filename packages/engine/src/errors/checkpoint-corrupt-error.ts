const MARKER = Symbol.for('attractor.error.CheckpointCorruptError');

/** Thrown when `checkpoint.json` (or `manifest.json`) exists but cannot be used: bad JSON or another format version. */
export class CheckpointCorruptError extends Error {
  override readonly name = 'CheckpointCorruptError';
  readonly code = 'CHECKPOINT_CORRUPT';
  /** The file that could not be read. */
  readonly path: string;
  readonly retryable = false;
  readonly [MARKER] = true;

  constructor(options: { path: string; reason: string; cause?: unknown }) {
    super(
      `Cannot resume from ${options.path}: ${options.reason}. Start a new run, or restore the file from a backup.`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.path = options.path;
  }

  /** True for a `CheckpointCorruptError` from any copy of this package. */
  static isInstance(error: unknown): error is CheckpointCorruptError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
