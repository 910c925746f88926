/** What every stage of `parseDot` shares about the text being parsed, and how it reports errors. */
import { DotSyntaxError } from './errors/dot-syntax-error.js';
import { createLineIndex, type LineIndex, spanAt } from './line-index.js';

/** The text being parsed, its line index and its file name. */
export interface ParseContext {
  readonly source: string;
  readonly lines: LineIndex;
  readonly filename: string | undefined;
}

/** Builds the context for one `parseDot` call. */
export function createParseContext(source: string, filename: string | undefined): ParseContext {
  return { source, lines: createLineIndex(source), filename };
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
    span: spanAt(context.lines, startOffset, Math.max(startOffset, endOffset), context.filename),
    shortMessage,
    hint,
    ...(context.filename === undefined ? {} : { filename: context.filename }),
  });
}

/** `line L, column C` of an offset, for messages that refer to a second place. */
export function describeOffset(context: ParseContext, offset: number): string {
  const { line, column } = spanAt(context.lines, offset, offset).start;
  return `line ${line}, column ${column}`;
}
