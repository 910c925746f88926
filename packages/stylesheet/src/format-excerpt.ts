/**
 * The source excerpt of a `StylesheetSyntaxError`: the line of the error between its neighbours, a caret under the
 * column. Ohm's own excerpt (`getLineAndColumnMessage`) pads and trims a line as long as the whole value, which costs
 * time quadratic in its length (a 160,000-character value took 13 s); this one shows at most
 * {@link MAX_EXCERPT_WIDTH} characters of each line, around the column, in time linear in the text.
 */

/** Widest part of a line shown, in characters: a window around the column, cut lines marked with `…`. */
export const MAX_EXCERPT_WIDTH = 120;

/** How many characters of a cut line are shown before the column. */
const BEFORE_COLUMN = 40;

/**
 * The excerpt for the place `offset` of `source` (0-based), in Ohm's layout:
 * ```text
 *   1 | * { llm_model: a }
 * > 2 | .code { llm_model b }
 *                         ^
 * ```
 * @param source - The stylesheet text.
 * @param offset - Where the error is (at most `source.length`).
 * @returns Lines joined with `\n`, no trailing newline. Internal.
 */
export function formatExcerpt(source: string, offset: number): string {
  const lineStart = source.lastIndexOf('\n', offset - 1) + 1;
  let line = 1;
  for (
    let index = source.indexOf('\n');
    index !== -1 && index < lineStart;
    index = source.indexOf('\n', index + 1)
  )
    line += 1;
  const lineEnd = endOf(source, lineStart);
  const column = offset - lineStart;
  const marked = source.slice(lineStart, lineEnd);
  const previous =
    lineStart === 0 ? undefined : source.slice(source.lastIndexOf('\n', lineStart - 2) + 1, lineStart - 1);
  const next = lineEnd === source.length ? undefined : source.slice(lineEnd + 1, endOf(source, lineEnd + 1));

  const windowStart = marked.length > MAX_EXCERPT_WIDTH ? Math.max(0, column - BEFORE_COLUMN) : 0;
  const crop = (text: string): string => {
    const shown = text.slice(windowStart, windowStart + MAX_EXCERPT_WIDTH);
    return `${windowStart > 0 && text.length > windowStart ? '…' : ''}${shown}${windowStart + MAX_EXCERPT_WIDTH < text.length ? '…' : ''}`;
  };
  const width = String(next === undefined ? line : line + 1).length;
  const numbered = (prefix: string, number: number, text: string) =>
    `${prefix}${String(number).padStart(width)} | ${crop(text)}`;
  const caretColumn = column - windowStart + (windowStart > 0 ? 1 : 0);
  return [
    ...(previous === undefined ? [] : [numbered('  ', line - 1, previous)]),
    numbered('> ', line, marked),
    `${' '.repeat(2 + width + 3 + caretColumn)}^`,
    ...(next === undefined ? [] : [numbered('  ', line + 1, next)]),
  ].join('\n');
}

/** The end of the line starting at `start` (its `\n`, or the end of the text). */
function endOf(source: string, start: number): number {
  const newline = source.indexOf('\n', start);
  return newline === -1 ? source.length : newline;
}
