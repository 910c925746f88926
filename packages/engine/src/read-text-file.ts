/**
 * Bounded reads of files a user names (docs/architecture.md "Parsing"; issue 20 §2): a pipeline, a
 * `graph_ref`, a simulation script, a run's files. Only regular files are read, and only up to a size limit,
 * so `/dev/zero` cannot grow the process without bound and a FIFO cannot block it forever.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { FileRefusedError } from './errors/file-refused-error.js';

// The `@attractor/engine/read-text-file` entry is loaded alone by the CLI (no engine start-up cost); it carries its
// error class with it.
export { FileRefusedError, type FileRefusedReason } from './errors/file-refused-error.js';

/** Default of {@link ReadTextFileOptions.maxBytes}: 10 MB (10,000,000 bytes). */
export const DEFAULT_MAX_FILE_BYTES = 10_000_000;

/** Options of {@link readTextFileSync}. */
export interface ReadTextFileOptions {
  /** Largest file read, in bytes. Default: {@link DEFAULT_MAX_FILE_BYTES} (10 MB). */
  readonly maxBytes?: number;
  /** What the file is, for messages ("Pipeline file", "graph_ref"). Default: "File". */
  readonly what?: string;
  /** How to raise the limit, for the too-large message. Default: none. */
  readonly limitHint?: string;
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/**
 * Reads a UTF-8 text file when it is a regular file of at most `maxBytes` bytes. The file is opened without
 * blocking (a FIFO with no writer does not hang the open) and checked on the open descriptor, so it cannot be
 * swapped between the check and the read. Files that report size 0 but have content (`/proc`) are read up to the
 * limit too.
 *
 * @throws {FileRefusedError} `not_regular` for a FIFO, device, socket or directory; `too_large` past the limit.
 * @throws the `fs` error (`ENOENT`, `EACCES`, ...) when it cannot be opened.
 */
export function readTextFileSync(path: string, options: ReadTextFileOptions = {}): string {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const what = options.what ?? 'File';
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      throw new FileRefusedError({
        reason: 'not_regular',
        path,
        message: `${what} ${path} is ${kindOf(stats)}, not a regular file; only regular files are read. Name a .dot (or .json) file instead.`,
      });
    }
    const tooLarge = (size: string) =>
      new FileRefusedError({
        reason: 'too_large',
        path,
        message: `${what} ${path} is ${size} bytes, over the limit of ${maxBytes} bytes${options.limitHint === undefined ? '' : ` (${options.limitHint})`}.`,
      });
    if (stats.size > maxBytes) throw tooLarge(String(stats.size));
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(stats.size + 1, 64 * 1024)));
    let length = 0;
    let chunk = buffer;
    for (;;) {
      if (length === chunk.length) {
        if (length > maxBytes) throw tooLarge(`more than ${maxBytes}`);
        const grown = Buffer.allocUnsafe(Math.min(maxBytes + 1, chunk.length * 2));
        chunk.copy(grown, 0, 0, length);
        chunk = grown;
      }
      const read = readSync(fd, chunk, length, chunk.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) throw tooLarge(`more than ${maxBytes}`);
    return chunk.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}
