/**
 * Turns the SyntaxError a config module failed to load with into a compiler-style report: `file:line:col`, the
 * source line with a caret, and what to do. The place comes from the error's stack when Node put it there (a
 * TypeScript config, a missing export), else from `node --check` (a JavaScript config).
 */
import { extname } from 'node:path';
import { formatCodeFrame } from '@attractor/dot';
import { readTextFileSync } from '@attractor/engine/read-text-file';
import { displayPath } from '../load-pipeline.js';
import { nodeCheckProcess } from './node-check-process.js';
import { parseSyntaxErrorLocation, type SyntaxErrorLocation } from './syntax-error-location.js';

/** Extensions `node --check` parses as Node would load them (it does not strip TypeScript types). */
const CHECKED_EXTENSIONS: ReadonlySet<string> = new Set(['.js', '.mjs', '.cjs']);

/**
 * The report of a SyntaxError thrown while importing the config file `path`:
 *
 * ```text
 * attractor.config.mjs:4:18: SyntaxError: Unexpected token ';'
 * > 4 | export const x = ;
 *     |                  ^
 * Correct the code there, then run the command again.
 * ```
 *
 * The file is shown relative to `cwd` and may be a module the config imports. Without a caret from Node (or when
 * the file no longer holds the line Node printed) the place is `file:line` and there is no excerpt.
 *
 * When a JavaScript config parses but a module it imports does not (Node names no place then), the report says so.
 *
 * @returns the report, or undefined when `error` is no SyntaxError of parsing or linking (the config's code threw
 *   it, e.g. from `JSON.parse`) or Node tells no place for it.
 */
export async function describeConfigSyntaxError(options: {
  readonly error: unknown;
  readonly path: string;
  readonly cwd: string;
}): Promise<string | undefined> {
  const { error } = options;
  if (!(error instanceof Error) || error.name !== 'SyntaxError') return undefined;
  let location = parseSyntaxErrorLocation(error.stack ?? '');
  // A SyntaxError the config's code throws while running (JSON.parse) has frames outside Node's module loader.
  if (location === undefined && thrownByCode(error.stack ?? '')) return undefined;
  if (location === undefined && CHECKED_EXTENSIONS.has(extname(options.path))) {
    const check = await nodeCheckProcess(options.path);
    if (check?.parses === true) {
      return `${error.name}: ${error.message}, in a module the config imports (the config itself parses). Run \`node --check <file>\` on the modules it imports to see where.`;
    }
    if (check !== undefined) location = parseSyntaxErrorLocation(check.stderr);
  }
  if (location === undefined) return undefined;
  // The file just failed to load, so it exists; should it be gone already, the report goes without its excerpt.
  // Bounded like every file the CLI reads: a module that became a FIFO or a huge file gets no excerpt.
  let source: string | undefined;
  try {
    source = readTextFileSync(location.path, { what: 'Config module' });
  } catch {
    source = undefined;
  }
  const frame = source === undefined ? undefined : codeFrame(source, location);
  const where = `${displayPath(location.path, options.cwd)}:${location.line}${frame === undefined ? '' : `:${location.column}`}`;
  return [
    `${where}: ${error.name}: ${error.message}`,
    ...(frame === undefined ? [] : [frame]),
    'Correct the code there, then run the command again.',
  ].join('\n');
}

/**
 * The source line of `location` with a caret under its column; undefined without a column, or when the line in
 * `source` is not the one Node printed (then the column cannot be trusted).
 */
function codeFrame(source: string, location: SyntaxErrorLocation): string | undefined {
  if (location.column === undefined) return undefined;
  let lineStart = 0;
  for (let line = 1; line < location.line; line++) {
    const newline = source.indexOf('\n', lineStart);
    if (newline === -1) return undefined;
    lineStart = newline + 1;
  }
  const lineEnd = source.indexOf('\n', lineStart);
  const text = source.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).replace(/\r$/, '');
  if (text !== location.lineText) return undefined;
  return formatCodeFrame(
    source,
    { line: location.line, column: location.column, offset: lineStart + location.column - 1 },
    { contextLines: 0 },
  );
}

/** True when a stack frame lies outside Node's own modules: the code being loaded threw the error. */
function thrownByCode(stack: string): boolean {
  return stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .some((frame) => !/^\s+at (?:async )?(?:\S+ \()?node:/.test(frame));
}
