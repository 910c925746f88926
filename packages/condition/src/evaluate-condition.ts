import type { ConditionAst, ConditionClause } from './condition-ast.js';
import { parseConditionCached } from './condition-cache.js';
import { type ConditionInput, resolveConditionKey } from './resolve-condition-key.js';

function clauseHolds(clause: ConditionClause, input: ConditionInput): boolean {
  const actual = resolveConditionKey(clause.key.path, input);
  if (clause.kind === 'truthy') return actual !== '';
  return clause.operator === '=' ? actual === clause.literal.value : actual !== clause.literal.value;
}

/**
 * Evaluates a condition, spec §10.3-§10.5: every clause must hold, left to right; zero clauses
 * (an empty condition) always hold.
 *
 * Keys resolve as {@link resolveConditionKey} describes: missing values are `""`, `context.x` falls
 * back to `x`, and comparison is exact and case-sensitive on strings. A bare-key clause holds when the
 * value is a non-empty string (so `"false"` holds, as in the spec's `bool(string)`).
 *
 * A string `condition` is parsed first; parsed strings are cached (least recently used, 512 entries),
 * so passing the edge's condition text on every step is cheap.
 *
 * @throws {ConditionSyntaxError} when `condition` is a string that does not parse.
 * @example
 * ```ts
 * const context = new Map<string, unknown>([['tests_passed', true]]);
 * evaluateCondition('outcome=success && context.tests_passed=true', { outcome: 'success', context }); // true
 * ```
 */
export function evaluateCondition(condition: ConditionAst | string, input: ConditionInput): boolean {
  const ast = typeof condition === 'string' ? parseConditionCached(condition) : condition;
  return ast.clauses.every((clause) => clauseHolds(clause, input));
}
