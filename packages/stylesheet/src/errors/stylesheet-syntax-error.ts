import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * Where a stylesheet failed to parse. `offset` is 0-based inside the stylesheet text (UTF-16 code
 * units); `line` and `column` are 1-based.
 */
export interface StylesheetSyntaxErrorLocation {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** Constructor fields of {@link StylesheetSyntaxError}. */
export interface StylesheetSyntaxErrorOptions {
  /** The stylesheet text that failed to parse. */
  readonly source: string;
  readonly location: StylesheetSyntaxErrorLocation;
  /** One line without location, e.g. `Expected ":"`. */
  readonly shortMessage: string;
  /** What the grammar expected at the location, in words, e.g. `a selector: *, a shape name, #id or .class`. */
  readonly expected: string;
  /** The full message: location, short message, source excerpt with a caret, and how to fix it. */
  readonly message: string;
  readonly cause?: unknown;
}

/**
 * Thrown by `parseStylesheet` when a model stylesheet (spec §8.2) cannot be parsed.
 *
 * `location` is inside the stylesheet text; a caller that knows where the text sits in a DOT file
 * (the lint) adds that offset. `shortMessage` is one line without location, `expected` lists what
 * the grammar expected, and `message` shows the text around the error with a caret.
 *
 * Use {@link StylesheetSyntaxError.isInstance} rather than `instanceof`.
 */
export class StylesheetSyntaxError extends AttractorError<'STYLESHEET_SYNTAX'> {
  override readonly name = 'StylesheetSyntaxError' as const;
  readonly source: string;
  readonly location: StylesheetSyntaxErrorLocation;
  readonly shortMessage: string;
  readonly expected: string;

  constructor(options: StylesheetSyntaxErrorOptions) {
    super({ code: 'STYLESHEET_SYNTAX', message: options.message, cause: options.cause });
    this.source = options.source;
    this.location = options.location;
    this.shortMessage = options.shortMessage;
    this.expected = options.expected;
  }

  /** True for a `StylesheetSyntaxError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(StylesheetSyntaxError);
}
