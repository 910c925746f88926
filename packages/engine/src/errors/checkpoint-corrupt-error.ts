import { AttractorError, isErrorOf } from '@attractor/errors';

/** Thrown when `checkpoint.json` (or `manifest.json`) exists but cannot be used: bad JSON or another format version. */
export class CheckpointCorruptError extends AttractorError<'CHECKPOINT_CORRUPT'> {
  override readonly name = 'CheckpointCorruptError';
  /** The file that could not be read. */
  readonly path: string;
  readonly retryable = false;

  constructor(options: { path: string; reason: string; cause?: unknown }) {
    super({
      code: 'CHECKPOINT_CORRUPT',
      message: `Cannot resume from ${options.path}: ${options.reason}. Start a new run, or restore the file from a backup.`,
      cause: options.cause,
    });
    this.path = options.path;
  }

  /** True for a `CheckpointCorruptError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(CheckpointCorruptError);
}
