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
 * How a literal was written, spec §10.2: a quoted `string`, an `integer` (`-?[0-9]+`), a `boolean`
 * (`true` or `false`) or a `bare` literal (`[A-Za-z_][A-Za-z0-9_.:-]*`). Comparison always uses the
 * literal's string `value`, whatever its kind.
 */
export type ConditionLiteralKind = 'string' | 'integer' | 'boolean' | 'bare';

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

/** The comparison operators of spec §10.2. */
export type ConditionOperator = '=' | '!=';

/** A clause `key=literal` or `key!=literal`, spec §10.2. */
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

/** One `&&`-separated clause of a condition, spec §10.2. */
export type ConditionClause = ConditionComparisonClause | ConditionTruthyClause;

/**
 * A parsed condition, spec §10.2: clauses AND-combined left to right. Zero clauses (blank text) means
 * the condition always holds. `source` is the condition text that was parsed.
 */
export interface ConditionAst {
  readonly clauses: readonly ConditionClause[];
  readonly source: string;
}
