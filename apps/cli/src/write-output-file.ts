/**
 * Writing the file a command was told to write (`render -o`, `new -o`): a failure is a user error naming the flag,
 * the path and the cause, never a stack trace.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CliError } from './errors/cli-error.js';
import { describeFsError, isFsFault } from './errors/describe-fs-error.js';

/** Causes of a failed write that {@link describeFsError} leaves to the error's own message, by errno code. */
const WRITE_CAUSES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'a directory of that name exists',
  ENAMETOOLONG: 'the name is too long',
};

/** Options of {@link writeOutputFile}. */
export interface WriteOutputFileOptions {
  /** The absolute path to write; missing parent directories are made. */
  readonly path: string;
  readonly text: string;
  /** The path as the user gave it, for the message. */
  readonly shown: string;
  /** The flag that named the path, e.g. `-o`. */
  readonly flag: string;
}

/**
 * Writes `text` to `path` (UTF-8), making its missing parent directories.
 *
 * @throws {CliError} `CLI_INVALID_INPUT` (exit 2): `Cannot write -o out.svg: permission denied (EACCES). Give -o a
 *   writable path.` for any file-system error of the write (unknown errors are thrown as they are).
 */
export async function writeOutputFile(options: WriteOutputFileOptions): Promise<void> {
  try {
    await mkdir(dirname(options.path), { recursive: true });
    await writeFile(options.path, options.text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const known = typeof code === 'string' && Object.hasOwn(WRITE_CAUSES, code);
    if (!known && !isFsFault(error)) throw error;
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `Cannot write ${options.flag} ${options.shown}: ${known ? `${WRITE_CAUSES[code]} (${code})` : describeFsError(error)}. Give ${options.flag} a writable path.`,
      cause: error,
    });
  }
}
