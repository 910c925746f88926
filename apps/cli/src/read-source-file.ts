import { resolve } from 'node:path';
import { FileRefusedError, readTextFileSync } from '@attractor/engine/read-text-file';
import { CliError } from './errors/cli-error.js';

/** The environment variable that raises the size limit of files the CLI reads (bytes; default 10 MB). */
export const MAX_FILE_BYTES_ENV = 'ATTRACTOR_MAX_FILE_BYTES';

/** The read limit from `ATTRACTOR_MAX_FILE_BYTES`, or undefined for the default (10 MB). */
export function maxFileBytesFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const text = env[MAX_FILE_BYTES_ENV]?.trim();
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `${MAX_FILE_BYTES_ENV}=${text} is not a positive number of bytes. Set it to e.g. 50000000, or unset it for the default of 10 MB.`,
    });
  }
  return value;
}

const LIMIT_HINT = `raise it with ${MAX_FILE_BYTES_ENV}=<bytes>`;

/**
 * Reads a UTF-8 text file named on the command line.
 *
 * Only a regular file of at most `maxBytes` (default 10 MB) is read: a FIFO, a device (`/dev/zero`) or a directory
 * is refused with the path and the reason.
 *
 * @throws {CliError} `CLI_FILE_NOT_FOUND` when it does not exist, naming the path as given and the absolute path
 *   that was tried; `CLI_USAGE` when it is not a regular file or is too large.
 */
export async function readSourceFile(
  path: string,
  options: { readonly cwd: string; readonly what?: string; readonly maxBytes?: number },
): Promise<string> {
  const absolute = resolve(options.cwd, path);
  try {
    return readTextFileSync(absolute, {
      what: options.what ?? 'File',
      limitHint: LIMIT_HINT,
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    });
  } catch (error) {
    if (FileRefusedError.isInstance(error)) {
      throw new CliError({ code: 'CLI_USAGE', message: error.message, cause: error });
    }
    const code = (error as NodeJS.ErrnoException).code;
    const what = options.what ?? 'File';
    const reason =
      code === 'ENOENT'
        ? 'not found'
        : code === 'EISDIR'
          ? 'is a directory, not a file'
          : `cannot be read (${code ?? String(error)})`;
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `${what} ${path} ${reason}${absolute === path ? '' : ` (looked at ${absolute})`}. Check the path; relative paths are resolved against the current directory.`,
      cause: error,
    });
  }
}

/**
 * The `readGraphFile` of `prepareGraph` for the CLI: reads a DOT file named by a `graph_ref` (spec §9.4), a
 * relative path resolved against `cwd`. Returns `undefined` when the file does not exist; other failures (a
 * directory, a FIFO, a device, over `maxBytes`, no permission) throw and become "cannot be read" diagnostics.
 */
export function createGraphFileReader(cwd: string, maxBytes?: number): (path: string) => string | undefined {
  return (path) => {
    try {
      return readTextFileSync(resolve(cwd, path), {
        what: 'The file',
        limitHint: LIMIT_HINT,
        ...(maxBytes === undefined ? {} : { maxBytes }),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  };
}
