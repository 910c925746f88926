import type {
  ConditionAst,
  ConditionClause,
  ConditionComparisonClause,
  ConditionExpression,
} from './condition-ast.js';
import { parseConditionCached } from './condition-cache.js';
import { compiledPattern } from './condition-pattern.js';
import { type ConditionInput, resolveConditionKey } from './resolve-condition-key.js';

/** A number written plainly (`3`, `-1.5`, ` 42 `): what the ordering operators compare numerically. */
const NUMBER = /^\s*-?(?:\d+(?:\.\d*)?|\.\d+)\s*$/;

/**
 * Orders two values for `<`, `>`, `<=`, `>=`: numerically when both are numbers, otherwise by string (UTF-16 code
 * unit) order. Returns negative, zero or positive.
 */
export function compareConditionValues(actual: string, expected: string): number {
  if (NUMBER.test(actual) && NUMBER.test(expected)) return Number(actual) - Number(expected);
  return actual < expected ? -1 : actual > expected ? 1 : 0;
}

/**
 * Outcome words of other runners (Fabro since its 2026-04 release) and the status of spec §5.2 each stands for:
 * `outcome=succeeded` matches the outcome `success`. `skipped` is the same word in both.
 */
export const OUTCOME_WORD_ALIASES: Readonly<Record<string, string>> = {
  succeeded: 'success',
  failed: 'fail',
  partially_succeeded: 'partial_success',
};

/**
 * The status of spec §5.2 an outcome word stands for: `succeeded` -> `success` (see {@link OUTCOME_WORD_ALIASES});
 * any other word as it is.
 */
export function canonicalOutcome(word: string): string {
  return Object.hasOwn(OUTCOME_WORD_ALIASES, word) ? OUTCOME_WORD_ALIASES[word]! : word;
}

function equalsLiteral(clause: ConditionComparisonClause, actual: string): boolean {
  const expected = clause.literal.value;
  if (actual === expected) return true;
  // Numbers compare as numbers (README "Typed data"): a score of 9 (or 9.0) equals 9.
  if (NUMBER.test(actual) && NUMBER.test(expected)) return Number(actual) === Number(expected);
  return clause.key.path === 'outcome' && actual === canonicalOutcome(expected);
}

/**
 * Whether a comparison holds for `actual`, the value of its key. An `outcome` compared with `=` / `!=` to an outcome
 * word of another runner (`succeeded`) also matches the status it stands for (`success`).
 */
export function comparisonHolds(clause: ConditionComparisonClause, actual: string): boolean {
  const expected = clause.literal.value;
  switch (clause.operator) {
    case '=':
      return equalsLiteral(clause, actual);
    case '!=':
      return !equalsLiteral(clause, actual);
    // A missing value (`""`) is not ordered: `context.coverage < 80` does not hold before anything sets coverage.
    case '<':
      return actual !== '' && compareConditionValues(actual, expected) < 0;
    case '>':
      return actual !== '' && compareConditionValues(actual, expected) > 0;
    case '<=':
      return actual !== '' && compareConditionValues(actual, expected) <= 0;
    case '>=':
      return actual !== '' && compareConditionValues(actual, expected) >= 0;
    case 'contains':
      return actual.includes(expected);
    case '!contains':
      return !actual.includes(expected);
    case 'matches':
      return compiledPattern(expected).test(actual);
  }
}

function holdsWith(
  expression: ConditionExpression,
  clauseHolds: (clause: ConditionClause) => boolean,
): boolean {
  switch (expression.kind) {
    case 'truthy':
    case 'comparison':
      return clauseHolds(expression);
    case 'not':
      return !holdsWith(expression.operand, clauseHolds);
    case 'and':
      return expression.operands.every((operand) => holdsWith(operand, clauseHolds));
    case 'or':
      return expression.operands.some((operand) => holdsWith(operand, clauseHolds));
  }
}

/**
 * Evaluates a parsed condition's `!`, `&&` and `||` with the truth of each clause given by `clauseHolds`: for
 * analyses that assume clause values instead of reading a context (lint's `condition_coverage`). An empty condition
 * holds.
 */
export function conditionHoldsWith(
  ast: ConditionAst,
  clauseHolds: (clause: ConditionClause) => boolean,
): boolean {
  return ast.expression === undefined || holdsWith(ast.expression, clauseHolds);
}

function clauseHoldsFor(input: ConditionInput): (clause: ConditionClause) => boolean {
  return (clause) => {
    const actual = resolveConditionKey(clause.key.path, input);
    return clause.kind === 'truthy' ? actual !== '' : comparisonHolds(clause, actual);
  };
}

/**
 * Evaluates a condition, spec §10.3-§10.5 and the extensions of §10.7: `!` before `&&` before `||`, each
 * short-circuiting left to right; an empty condition always holds.
 *
 * Keys resolve as {@link resolveConditionKey} describes: missing values are `""`, `context.x` falls
 * back to `x`. `=` and `!=` compare exactly and case-sensitively on strings, and numerically when both sides are
 * plain numbers (`context.score=9` holds for `9.0`); `<`, `>`, `<=`, `>=` compare
 * numerically when both sides are numbers (`10 > 9`) and by string order otherwise, and never hold for a missing
 * (empty) value; `contains` / `!contains` test
 * for a substring; `matches` tests a JavaScript regular expression anywhere in the value (anchor it with `^...$`).
 * A bare-key clause holds when the value is a non-empty string (so `"false"` holds, as in the spec's
 * `bool(string)`). `outcome=succeeded`, `failed` and `partially_succeeded` (Fabro's words) match `success`, `fail`
 * and `partial_success`.
 *
 * A string `condition` is parsed first; parsed strings are cached (least recently used, 512 entries),
 * so passing the edge's condition text on every step is cheap.
 *
 * @throws {ConditionSyntaxError} when `condition` is a string that does not parse.
 * @example
 * ```ts
 * const context = new Map<string, unknown>([['tests_passed', true], ['coverage', 91]]);
 * evaluateCondition('outcome=success && context.tests_passed=true', { outcome: 'success', context }); // true
 * evaluateCondition('context.coverage >= 90 || outcome=partial_success', { outcome: 'success', context }); // true
 * ```
 */
export function evaluateCondition(condition: ConditionAst | string, input: ConditionInput): boolean {
  const ast = typeof condition === 'string' ? parseConditionCached(condition) : condition;
  return conditionHoldsWith(ast, clauseHoldsFor(input));
}
