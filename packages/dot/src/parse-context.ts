/** What every stage of `parseDot` shares about the text being parsed, and how it reports errors. */
import { DotSyntaxError } from './errors/dot-syntax-error.js';
import { createLineIndex, type LineIndex, plainSpan, positionAt, spanAt } from './line-index.js';

/** The text being parsed, its line index and its file name. */
export interface ParseContext {
  readonly source: string;
  readonly lines: LineIndex;
  readonly filename: string | undefined;
  /**
   * One string per distinct attribute key: a large file writes the same few keys many times, and every
   * `source.slice` of a short text is a new string.
   */
  readonly names: Map<string, string>;
}

/** Builds the context for one `parseDot` call. */
export function createParseContext(source: string, filename: string | undefined): ParseContext {
  return { source, lines: createLineIndex(source, filename), filename, names: new Map() };
}

/** The one string of the parse equal to `text` (see {@link ParseContext.names}). */
export function intern(context: ParseContext, text: string): string {
  const known = context.names.get(text);
  if (known !== undefined) return known;
  context.names.set(text, text);
  return text;
}

/** A `DotSyntaxError` for the text `[startOffset, endOffset)` of the context's source. */
export function syntaxError(
  context: ParseContext,
  startOffset: number,
  endOffset: number,
  shortMessage: string,
  hint: string,
): DotSyntaxError {
  return new DotSyntaxError({
    source: context.source,
    span: plainSpan(spanAt(context.lines, startOffset, Math.max(startOffset, endOffset))),
    shortMessage,
    hint,
    ...(context.filename === undefined ? {} : { filename: context.filename }),
  });
}

/** `line L, column C` of an offset, for messages that refer to a second place. */
export function describeOffset(context: ParseContext, offset: number): string {
  const { line, column } = positionAt(context.lines, offset);
  return `line ${line}, column ${column}`;
}
