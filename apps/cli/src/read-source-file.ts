import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CliError } from './errors/cli-error.js';

/**
 * Reads a UTF-8 text file named on the command line.
 *
 * @throws {CliError} `CLI_FILE_NOT_FOUND` when it does not exist or is a directory, naming the path as given and
 *   the absolute path that was tried.
 */
export async function readSourceFile(
  path: string,
  options: { readonly cwd: string; readonly what?: string },
): Promise<string> {
  const absolute = resolve(options.cwd, path);
  try {
    return await readFile(absolute, 'utf8');
  } catch (error) {
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
 * directory, no permission) throw and become "cannot be read" diagnostics.
 */
export function createGraphFileReader(cwd: string): (path: string) => string | undefined {
  return (path) => {
    try {
      return readFileSync(resolve(cwd, path), 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  };
}
