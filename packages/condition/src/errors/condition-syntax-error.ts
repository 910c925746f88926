import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * Where a condition failed to parse. `offset` is 0-based inside the condition text (UTF-16 code
 * units); `line` and `column` are 1-based.
 */
export interface ConditionSyntaxErrorLocation {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** Constructor fields of {@link ConditionSyntaxError}. */
export interface ConditionSyntaxErrorOptions {
  /** The condition text that failed to parse. */
  readonly source: string;
  readonly location: ConditionSyntaxErrorLocation;
  /** Length of the offending token in code units (0 at the end of the text). */
  readonly length: number;
  /** One line without location, e.g. `Expected a value`. */
  readonly shortMessage: string;
  /** What the grammar expected at the location, in words, e.g. `end of input or "&&"`. */
  readonly expected: string;
  /** Set when the text uses an operator of spec §10.7 that the language does not have, e.g. `||`. */
  readonly unsupportedOperator?: string | undefined;
  /** The full message: location, short message, source excerpt with a caret, and how to fix it. */
  readonly message: string;
  readonly cause?: unknown;
}

/**
 * Thrown when a condition expression (spec §10.2) cannot be parsed, by `parseCondition` and by
 * `evaluateCondition` given a string.
 *
 * `location` is inside the condition text; a caller that knows where the text sits in a DOT file
 * (the lint) adds that offset. `shortMessage` is one line without location, `expected` lists what the
 * grammar expected, and `message` shows the text with a caret and a fix. Operators of §10.7 (`||`,
 * `!`, `contains`, `<`, ...) are rejected with `unsupportedOperator` naming the operator.
 *
 * Use {@link ConditionSyntaxError.isInstance} rather than `instanceof`.
 */
export class ConditionSyntaxError extends AttractorError<'CONDITION_SYNTAX'> {
  override readonly name = 'ConditionSyntaxError' as const;
  readonly source: string;
  readonly location: ConditionSyntaxErrorLocation;
  readonly length: number;
  readonly shortMessage: string;
  readonly expected: string;
  readonly unsupportedOperator: string | undefined;

  constructor(options: ConditionSyntaxErrorOptions) {
    super({ code: 'CONDITION_SYNTAX', message: options.message, cause: options.cause });
    this.source = options.source;
    this.location = options.location;
    this.length = options.length;
    this.shortMessage = options.shortMessage;
    this.expected = options.expected;
    this.unsupportedOperator = options.unsupportedOperator;
  }

  /** True for a `ConditionSyntaxError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(ConditionSyntaxError);
}
