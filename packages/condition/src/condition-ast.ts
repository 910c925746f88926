/**
 * A region of the condition text: `offset` is the index of its first character (0-based, in UTF-16
 * code units) and `length` its size in code units. Offsets are inside the condition text itself,
 * not the DOT file; add the offset of the attribute value to place them in a file.
 */
export interface ConditionSpan {
  readonly offset: number;
  readonly length: number;
}

/**
 * A key on the left of a clause, spec §10.4.
 *
 * `path` is the key as written: `outcome`, `preferred_label`, `context.tests_passed`, or an
 * unqualified context key such as `tool.output`.
 */
export interface ConditionKey {
  readonly path: string;
  readonly span: ConditionSpan;
}

/**
 * How a literal was written, spec §10.2: a quoted `string`, an `integer` (`-?[0-9]+`), a decimal `number`
 * (`-?[0-9]+.[0-9]+`, an extension), a `boolean` (`true` or `false`) or a `bare` literal
 * (`[A-Za-z_][A-Za-z0-9_.:-]*`). Comparison uses the literal's string `value`, whatever its kind (the ordering
 * operators compare numerically when both sides are numbers).
 */
export type ConditionLiteralKind = 'string' | 'integer' | 'number' | 'boolean' | 'bare';

/**
 * The right-hand side of a comparison.
 *
 * `value` is what is compared: the text with quotes removed and escapes (`\"`, `\\`, `\n`, `\r`, `\t`)
 * resolved for strings, the text itself otherwise. `raw` is the text as written, quotes included.
 */
export interface ConditionLiteral {
  readonly kind: ConditionLiteralKind;
  readonly value: string;
  readonly raw: string;
  readonly span: ConditionSpan;
}

/**
 * The comparison operators: `=` and `!=` of spec §10.2, and the extensions of §10.7 that other runners use:
 * `<`, `>`, `<=`, `>=` (numeric when both sides are numbers, else by string order; never for a missing value),
 * `contains` / `!contains`
 * (substring) and `matches` (a JavaScript regular expression, unanchored).
 */
export type ConditionOperator = '=' | '!=' | '<' | '>' | '<=' | '>=' | 'contains' | '!contains' | 'matches';

/** A clause `key <operator> literal`, spec §10.2 (operators other than `=` and `!=` are extensions). */
export interface ConditionComparisonClause {
  readonly kind: 'comparison';
  readonly key: ConditionKey;
  readonly operator: ConditionOperator;
  /** Span of the operator token. */
  readonly operatorSpan: ConditionSpan;
  readonly literal: ConditionLiteral;
  readonly span: ConditionSpan;
}

/**
 * A clause that is a bare key: true when the key resolves to a non-empty string, spec §10.5.
 * Note that the string `"false"` is non-empty and therefore truthy.
 */
export interface ConditionTruthyClause {
  readonly kind: 'truthy';
  readonly key: ConditionKey;
  readonly span: ConditionSpan;
}

/** A clause of a condition (a leaf of its expression), spec §10.2. */
export type ConditionClause = ConditionComparisonClause | ConditionTruthyClause;

/** `!operand` (extension, spec §10.7): holds when the operand does not. */
export interface ConditionNotExpression {
  readonly kind: 'not';
  readonly operand: ConditionExpression;
  readonly span: ConditionSpan;
}

/** Operands joined by `&&` (spec §10.2) or by `||` (extension, spec §10.7); two or more. */
export interface ConditionJunction {
  readonly kind: 'and' | 'or';
  readonly operands: readonly ConditionExpression[];
  readonly span: ConditionSpan;
}

/** A condition expression: a clause, a negation, or an `&&` / `||` junction (parentheses leave no node). */
export type ConditionExpression = ConditionClause | ConditionNotExpression | ConditionJunction;

/**
 * A construct beyond the §10.2 grammar (spec §10.7): `||`, `!`, parentheses, the operators `<`, `>`, `<=`, `>=`,
 * `contains`, `!contains`, `matches`, or a decimal number. `construct` names it as written (`||`, `(`, `contains`,
 * `1.5`); `span` locates it. `parseCondition(text, { strict: true })` refuses them.
 */
export interface ConditionExtension {
  readonly construct: string;
  readonly span: ConditionSpan;
}

/**
 * A parsed condition. `expression` is its tree (undefined for blank text, which always holds); `clauses` lists
 * every clause (leaf) in source order, for analyses that look at keys and literals; `extensions` lists what goes
 * beyond spec §10.2, in source order. A condition of the §10.2 grammar is an `and` of its clauses (or one clause).
 * `source` is the condition text that was parsed.
 */
export interface ConditionAst {
  readonly expression: ConditionExpression | undefined;
  readonly clauses: readonly ConditionClause[];
  readonly extensions: readonly ConditionExtension[];
  readonly source: string;
}
