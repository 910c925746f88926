import { AttractorError, isErrorOf } from '@attractor/errors';
import type { SourcePosition, SourceSpan } from '../dot-ast.js';
import { formatCodeFrame } from '../format-code-frame.js';

/** Options of the {@link DotSyntaxError} constructor. */
export interface DotSyntaxErrorOptions {
  /** The whole DOT text, used only to render the code frame of `message` (not kept). */
  readonly source: string;
  /** The offending text: a token, or an empty span at the place where something is missing. */
  readonly span: SourceSpan;
  /** One line, without location: `Undirected edge "--" is not supported`. */
  readonly shortMessage: string;
  /** How to fix it, one or two sentences. */
  readonly hint: string;
  /** The file the text came from, shown in `message`. */
  readonly filename?: string;
  readonly cause?: unknown;
}

/**
 * Thrown by `parseDot` when the text is not in the Attractor DOT subset (spec §2.1-§2.3,
 * docs/architecture.md "Parsing"). `message` reads, for example:
 *
 * ```text
 * pipeline.dot:3:5: Undirected edge "--" is not supported
 * > 3 |   a -- b
 *     |     ^^
 * Hint: Write edges with "->": pipelines are directed graphs.
 * ```
 *
 * The parts are also fields: `filename`, `location` (1-based `line` and `column`, 0-based `offset`),
 * `span` (start and end of the offending text), `shortMessage` and `hint`. Use
 * {@link DotSyntaxError.isInstance} rather than `instanceof` across packages.
 */
export class DotSyntaxError extends AttractorError<'DOT_SYNTAX'> {
  override readonly name = 'DotSyntaxError';
  /** The file name passed to `parseDot`, if any. */
  readonly filename: string | undefined;
  /** Where the problem starts. */
  readonly location: SourcePosition;
  /** The offending text (`span.start` equals `location`). */
  readonly span: SourceSpan;
  /** One-line description without location or excerpt. */
  readonly shortMessage: string;
  /** How to fix it. */
  readonly hint: string;

  constructor(options: DotSyntaxErrorOptions) {
    const { start } = options.span;
    const where =
      options.filename === undefined
        ? `line ${start.line}, column ${start.column}`
        : `${options.filename}:${start.line}:${start.column}`;
    // The location is already on the first line, so the frame goes without its ` --> file` line.
    const frame = formatCodeFrame(options.source, { start, end: options.span.end });
    super({
      code: 'DOT_SYNTAX',
      message: `${where}: ${options.shortMessage}\n${frame}\nHint: ${options.hint}`,
      cause: options.cause,
    });
    this.filename = options.filename;
    this.location = { line: start.line, column: start.column, offset: start.offset };
    this.span = options.span;
    this.shortMessage = options.shortMessage;
    this.hint = options.hint;
  }

  /** True for a `DotSyntaxError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(DotSyntaxError);
}
