import { AttractorError, isErrorOf } from '@attractor/errors';

/** Why a file was not read. */
export type FileRefusedReason =
  /** It is a FIFO, a device, a socket or a directory: reading it could block forever or never end. */
  | 'not_regular'
  /** It is larger than the read limit. */
  | 'too_large';

/**
 * Thrown by `readTextFileSync` when a file named by a user (a pipeline, a `graph_ref`, a simulation script) is not a
 * regular file or is larger than the limit. The message names the path, the reason and the fix.
 */
export class FileRefusedError extends AttractorError<'FILE_REFUSED'> {
  override readonly name = 'FileRefusedError';
  readonly reason: FileRefusedReason;
  readonly path: string;
  readonly retryable = false;

  constructor(options: { reason: FileRefusedReason; path: string; message: string }) {
    super({ code: 'FILE_REFUSED', message: options.message });
    this.reason = options.reason;
    this.path = options.path;
  }

  /** True for a `FileRefusedError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(FileRefusedError);
}
