/**
 * The source excerpt with a caret under the reported place, used in every `DotSyntaxError` message
 * and reusable by other packages (e.g. `@attractor/graph`'s diagnostics) so all our errors look alike.
 */
import type { SourcePosition, SourceSpan } from './dot-ast.js';

/** Options of {@link formatCodeFrame}. */
export interface FormatCodeFrameOptions {
  /** When given, the frame starts with a ` --> file:line:column` line. Default: no such line. */
  readonly filename?: string;
  /** Lines shown before and after the marked line. Default: 1. */
  readonly contextLines?: number;
  /**
   * Longest line shown, in characters; longer lines (prompts written on one line can be 10 KB) are
   * cut to a window around the column, marked with `…`. Default: 120.
   */
  readonly maxLineWidth?: number;
}

const DEFAULT_MAX_LINE_WIDTH = 120;

/**
 * Renders the lines around a position or span of `source`, a `>` on the marked line and carets (`^`)
 * under the marked characters (one caret for a position; for a span, one per character up to the end
 * of its first line).
 *
 * The position's `offset`, `line` and `column` must describe the same place in `source` (as every
 * span `parseDot` returns does). Tabs in the marked line are kept in the caret line so the carets
 * line up. Pure: it reads only its arguments.
 *
 * @param source - The whole text the position refers to.
 * @param at - A {@link SourcePosition}, or a {@link SourceSpan} (its `filename`, when present, is used
 *   unless `options.filename` is given).
 * @returns Lines joined with `\n`, without a trailing newline, e.g.
 * ```text
 *  --> pipeline.dot:3:5
 *   2 |   start [shape=Mdiamond]
 * > 3 |   a -- b
 *     |     ^^
 *   4 | }
 * ```
 * @example
 * ```ts
 * const frame = formatCodeFrame(source, node.span, { filename: 'pipeline.dot' });
 * console.error(`error: Edge target "reviw" does not exist\n${frame}`);
 * ```
 */
export function formatCodeFrame(
  source: string,
  at: SourcePosition | SourceSpan,
  options: FormatCodeFrameOptions = {},
): string {
  const start = 'start' in at ? at.start : at;
  const filename = options.filename ?? ('start' in at ? at.filename : undefined);
  const contextLines = Math.max(0, options.contextLines ?? 1);
  const maxWidth = Math.max(20, options.maxLineWidth ?? DEFAULT_MAX_LINE_WIDTH);

  const lineStart = Math.max(0, Math.min(start.offset - (start.column - 1), source.length));
  const markedLine = readLine(source, lineStart);
  const column = Math.min(start.column - 1, markedLine.text.length);
  let caretCount = 1;
  if ('start' in at && at.end.offset > at.start.offset) {
    caretCount = Math.max(1, Math.min(at.end.offset, markedLine.end) - start.offset);
  }

  const before: Array<{ line: number; text: string }> = [];
  let previousEnd = lineStart - 1;
  for (let line = start.line - 1; line >= 1 && before.length < contextLines && previousEnd >= 0; line--) {
    const previousStart = source.lastIndexOf('\n', previousEnd - 1) + 1;
    before.unshift({ line, text: stripCarriageReturn(source.slice(previousStart, previousEnd)) });
    previousEnd = previousStart - 1;
  }
  const after: Array<{ line: number; text: string }> = [];
  let nextStart = markedLine.next;
  for (let line = start.line + 1; after.length < contextLines && nextStart !== -1; line++) {
    const next = readLine(source, nextStart);
    after.push({ line, text: next.text });
    nextStart = next.next;
  }

  // One window for every shown line, so that columns stay aligned between them.
  let windowStart = 0;
  if (markedLine.text.length > maxWidth) {
    windowStart = Math.max(0, Math.min(column - Math.floor(maxWidth / 3), markedLine.text.length - maxWidth));
  }
  const crop = (text: string): string => {
    if (text.length <= maxWidth && windowStart === 0) return text;
    const slice = text.slice(windowStart, windowStart + maxWidth);
    return `${windowStart > 0 ? '…' : ''}${slice}${windowStart + maxWidth < text.length ? '…' : ''}`;
  };

  const gutterWidth = String(after.at(-1)?.line ?? start.line).length;
  const gutter = (line: number | undefined, marked: boolean): string =>
    `${marked ? '>' : ' '} ${line === undefined ? ' '.repeat(gutterWidth) : String(line).padStart(gutterWidth)} |`;
  const withText = (prefix: string, text: string): string => (text.length > 0 ? `${prefix} ${text}` : prefix);

  const output: string[] = [];
  if (filename !== undefined) output.push(` --> ${filename}:${start.line}:${start.column}`);
  for (const { line, text } of before) output.push(withText(gutter(line, false), crop(text)));
  output.push(withText(gutter(start.line, true), crop(markedLine.text)));
  const visibleColumn = column - windowStart + (windowStart > 0 ? 1 : 0);
  const visibleCarets = Math.max(1, Math.min(caretCount, maxWidth - (column - windowStart)));
  const padding = markedLine.text
    .slice(windowStart, column)
    .replace(/[^\t]/g, ' ')
    .padStart(visibleColumn, ' ');
  output.push(`${gutter(undefined, false)} ${padding}${'^'.repeat(visibleCarets)}`);
  for (const { line, text } of after) output.push(withText(gutter(line, false), crop(text)));
  return output.join('\n');
}

function readLine(source: string, lineStart: number): { text: string; end: number; next: number } {
  const newline = source.indexOf('\n', lineStart);
  const end = newline === -1 ? source.length : newline;
  return {
    text: stripCarriageReturn(source.slice(lineStart, end)),
    end,
    next: newline === -1 ? -1 : newline + 1,
  };
}

function stripCarriageReturn(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
