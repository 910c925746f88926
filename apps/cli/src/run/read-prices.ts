/**
 * Reading a `--prices` file (or the config's `defaults.prices`): bounded like every other file a user names, and an
 * error that says where the file is wrong without quoting it (the path may name any file the user can read).
 */
import type { PriceTable } from '@attractor/backend-ai-sdk';
import { FileRefusedError, readTextFileSync } from '@attractor/engine/read-text-file';
import { CliError } from '../errors/cli-error.js';
import { MAX_FILE_BYTES_ENV, maxFileBytesFromEnv } from '../read-source-file.js';

const PRICES_HINT =
  'Write {"<model id>": {"input": 3, "output": 15, "cachedInput": 0.3}} in USD per million tokens.';

/**
 * Where a `JSON.parse` error points, as "line L, column C", from its message; undefined when the message gives no
 * position. Only the position is taken: the message itself can quote the text.
 */
function jsonErrorLocation(text: string, error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : '';
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lineColumn !== null) return `line ${lineColumn[1]}, column ${lineColumn[2]}`;
  const position = /at position (\d+)/.exec(message);
  if (position === null) {
    return /Unexpected end of JSON input/.test(message) ? 'the end of the file' : undefined;
  }
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  return `line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

/**
 * Reads a `--prices` file: a regular file of at most `ATTRACTOR_MAX_FILE_BYTES` bytes (a FIFO or a device is refused
 * at once), parsed as JSON and checked as a price table. No message quotes the file's content.
 *
 * @param path - absolute path of the file.
 * @param options.env - the environment whose `ATTRACTOR_MAX_FILE_BYTES` sets the read limit (default 10 MB).
 * @throws {CliError} `CLI_FILE_NOT_FOUND` when it cannot be opened, `CLI_USAGE` when it is not a regular file or is too
 *   large, `CLI_INVALID_INPUT` when it is not JSON (naming the line and column when known) or not a price table.
 */
export async function readPrices(
  path: string,
  options: { readonly env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<PriceTable> {
  const maxBytes = options.env === undefined ? undefined : maxFileBytesFromEnv(options.env);
  let text: string;
  try {
    text = readTextFileSync(path, {
      what: 'The price file (--prices)',
      limitHint: `raise it with ${MAX_FILE_BYTES_ENV}=<bytes>`,
      ...(maxBytes === undefined ? {} : { maxBytes }),
    });
  } catch (error) {
    if (FileRefusedError.isInstance(error)) {
      throw new CliError({ code: 'CLI_USAGE', message: error.message, cause: error });
    }
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `Cannot read the price file ${path} (--prices): ${(error as Error).message}`,
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const location = jsonErrorLocation(text, error);
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `The price file ${path} (--prices) is not valid JSON${location === undefined ? '' : ` (at ${location})`}. ${PRICES_HINT}`,
    });
  }
  const { parsePriceTable } = await import('@attractor/backend-ai-sdk');
  const result = parsePriceTable(parsed);
  if (!result.ok) {
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `The price file ${path} (--prices) is not valid:\n${result.problems}\n${PRICES_HINT}`,
    });
  }
  return result.table;
}
