/**
 * Offset → line/column conversion for one source text, shared by the parser (AST spans) and the code
 * frame renderer. Lines are split at `\n`; a `\r` before it stays part of the line's text.
 */
import type { SourcePosition, SourceSpan } from './dot-ast.js';

/** The start offsets of every line of a source text, for binary search, and the file it came from. */
export interface LineIndex {
  readonly source: string;
  /** `lineStarts[i]` is the offset of the first character of line `i + 1`. */
  readonly lineStarts: readonly number[];
  /** Put on every span made with this index. */
  readonly filename: string | undefined;
}

/** Indexes the line starts of `source` (one pass over the text). */
export function createLineIndex(source: string, filename?: string): LineIndex {
  const lineStarts = [0];
  let newline = source.indexOf('\n');
  while (newline !== -1) {
    lineStarts.push(newline + 1);
    newline = source.indexOf('\n', newline + 1);
  }
  return { source, lineStarts, filename };
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

/**
 * The span of the AST: two offsets and the line index, with `start` and `end` worked out on each read.
 *
 * A large file has hundreds of thousands of spans, almost all of them never read; as plain data (a span and two
 * positions) each cost 144 bytes, this costs 48 (issue 8, "Speed and memory"). It behaves as a
 * {@link SourceSpan} everywhere one is read (`span.start.line`, `'start' in span`, `span.filename`) and
 * `JSON.stringify` gives exactly the plain span (`toJSON`). Its own enumerable properties are the two offsets,
 * so `toEqual` of two AST spans compares where they are; but spreading one (`{ ...span }`) or `structuredClone`
 * does not copy `start`, `end` and `filename`: copy them by name, as {@link plainSpan} does.
 */
export class OffsetSpan implements SourceSpan {
  readonly #index: LineIndex;
  /** 0-based offset of the first character. */
  readonly startOffset: number;
  /** 0-based offset after the last character. */
  readonly endOffset: number;

  constructor(index: LineIndex, startOffset: number, endOffset: number) {
    this.#index = index;
    this.startOffset = startOffset;
    this.endOffset = endOffset;
  }

  /** From `first` to `last` when both are offset spans of the same text, else undefined. */
  static between(first: SourceSpan, last: SourceSpan): OffsetSpan | undefined {
    if (!(first instanceof OffsetSpan && last instanceof OffsetSpan)) return undefined;
    const index = first.#index;
    return index === last.#index ? new OffsetSpan(index, first.startOffset, last.endOffset) : undefined;
  }

  /** Where the span starts (a new object on each read). */
  get start(): SourcePosition {
    return positionAt(this.#index, this.startOffset);
  }

  /** Where the span ends (a new object on each read). */
  get end(): SourcePosition {
    return positionAt(this.#index, this.endOffset);
  }

  /** The file of the text, when `parseDot` was given one. */
  get filename(): string | undefined {
    return this.#index.filename;
  }

  /**
   * The plain span, for `JSON.stringify`. (A copy that is not a real `OffsetSpan`, such as a test runner's, prints
   * its offsets.)
   */
  toJSON(): SourceSpan | { startOffset: number; endOffset: number } {
    const { startOffset, endOffset } = this;
    return #index in this ? plainSpan(this) : { startOffset, endOffset };
  }
}

/**
 * The span from the start of `first` to the end of `last` (for example an edge, from its source id to its target
 * id). Two spans of one `parseDot` call give a span of the same kind (offsets, positions worked out when read),
 * anything else a plain span (with the `filename` of `first`, if any).
 *
 * @param first - Where the span starts.
 * @param last - Where it ends; in the same text, not before `first`.
 * @returns A new span.
 */
export function spanBetween(first: SourceSpan, last: SourceSpan): SourceSpan {
  const joined = OffsetSpan.between(first, last);
  if (joined !== undefined) return joined;
  const { filename } = first;
  return filename === undefined
    ? { start: first.start, end: last.end }
    : { start: first.start, end: last.end, filename };
}

/** `span` as plain data: `start`, `end` and `filename` (when there is one) copied into a new object literal. */
export function plainSpan(span: SourceSpan): SourceSpan {
  const { start, end, filename } = span;
  return filename === undefined ? { start, end } : { start, end, filename };
}

/** The span `[startOffset, endOffset)`, tagged with the index's `filename` when it has one. */
export function spanAt(index: LineIndex, startOffset: number, endOffset: number): SourceSpan {
  return new OffsetSpan(index, startOffset, endOffset);
}
