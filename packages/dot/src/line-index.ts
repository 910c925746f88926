/**
 * Offset → line/column conversion for one source text, shared by the parser (AST spans) and the code
 * frame renderer. Lines are split at `\n`; a `\r` before it stays part of the line's text.
 */
import type { SourcePosition, SourceSpan } from './dot-ast.js';

/** The start offsets of every line of a source text, for binary search. */
export interface LineIndex {
  readonly source: string;
  /** `lineStarts[i]` is the offset of the first character of line `i + 1`. */
  readonly lineStarts: readonly number[];
}

/** Indexes the line starts of `source` (one pass over the text). */
export function createLineIndex(source: string): LineIndex {
  const lineStarts = [0];
  let newline = source.indexOf('\n');
  while (newline !== -1) {
    lineStarts.push(newline + 1);
    newline = source.indexOf('\n', newline + 1);
  }
  return { source, lineStarts };
}

/** The 1-based line and column of a 0-based `offset` (clamped to the text). Columns count UTF-16 code units. */
export function positionAt(index: LineIndex, offset: number): SourcePosition {
  const clamped = Math.max(0, Math.min(offset, index.source.length));
  const starts = index.lineStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= clamped) low = middle;
    else high = middle - 1;
  }
  return { offset: clamped, line: low + 1, column: clamped - starts[low]! + 1 };
}

/** The span `[startOffset, endOffset)` with line/column positions, tagged with `filename` when given. */
export function spanAt(
  index: LineIndex,
  startOffset: number,
  endOffset: number,
  filename?: string,
): SourceSpan {
  const start = positionAt(index, startOffset);
  const end = positionAt(index, endOffset);
  return filename === undefined ? { start, end } : { start, end, filename };
}
