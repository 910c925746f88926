import type { ConditionAst } from './condition-ast.js';

/**
 * Whether a condition can hold when the node's outcome is `outcome`, whatever the context and the
 * preferred label: false only when one of its `outcome` clauses rules that outcome out
 * (`outcome=fail` for `success`, `outcome!=success` for `success`). Clauses on other keys are assumed
 * satisfiable. For lint rules that ask whether any edge of a node can be taken on success or on
 * failure (DESIGN.md `condition_coverage`), see spec §10.3.
 *
 * @example
 * ```ts
 * conditionAllowsOutcome(parseCondition('outcome=fail && context.x=1'), 'fail'); // true
 * conditionAllowsOutcome(parseCondition('outcome!=success'), 'success'); // false
 * ```
 */
export function conditionAllowsOutcome(ast: ConditionAst, outcome: string): boolean {
  return ast.clauses.every((clause) => {
    if (clause.key.path !== 'outcome') return true;
    if (clause.kind === 'truthy') return outcome !== '';
    return clause.operator === '=' ? clause.literal.value === outcome : clause.literal.value !== outcome;
  });
}
