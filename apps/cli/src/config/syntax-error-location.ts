/**
 * Where Node.js says a module failed to parse or link, read from the text it prints before the error line (its
 * "arrow" header): `file:///dir/attractor.config.mjs:4`, the source line, then a caret line under the column.
 * Node puts this header in the stack of a TypeScript syntax error and of a link error (a missing export), and in
 * the output of `node --check`; the stack of a JavaScript module's syntax error has none.
 */
import { fileURLToPath } from 'node:url';

/** A place in a module, as Node.js reports it. */
export interface SyntaxErrorLocation {
  /** The module's file, an absolute path. */
  readonly path: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in characters (a tab counts as one); undefined when Node printed no caret line. */
  readonly column?: number;
  /** The source line Node printed above the caret (to check it against the file); set with `column`. */
  readonly lineText?: string;
}

const HEADER = /^(file:\/\/\/\S+|\/\S*):(\d+)$/;
const CARET = /^[\t ]*\^+[\t ]*$/;
const END_OF_HEADER = /^\s+at |^[A-Z]\w*(?:Error|Exception)\b/;

/**
 * Reads the first location header in `text` (an error's stack, or `node --check` output) that comes before the
 * error line and the stack frames, and the column of the caret line in the excerpt under it. Pure.
 *
 * @returns the location, or undefined when `text` has no header.
 */
export function parseSyntaxErrorLocation(text: string): SyntaxErrorLocation | undefined {
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (END_OF_HEADER.test(line)) return undefined;
    const match = HEADER.exec(line);
    if (match === null) continue;
    const [, file = '', lineNumber = ''] = match;
    const location = {
      path: file.startsWith('file:') ? fileURLToPath(file) : file,
      line: Number(lineNumber),
    };
    // The excerpt runs to the first blank line; a TypeScript one shows the line before the marked one too.
    for (let caret = index + 2; caret < lines.length && lines[caret] !== ''; caret++) {
      const text = lines[caret] ?? '';
      if (CARET.test(text)) {
        return { ...location, column: text.indexOf('^') + 1, lineText: lines[caret - 1] ?? '' };
      }
    }
    return location;
  }
  return undefined;
}
