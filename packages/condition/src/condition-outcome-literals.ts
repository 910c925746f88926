import type { ConditionAst } from './condition-ast.js';

/**
 * The outcome values a condition compares `outcome` against, in source order without duplicates:
 * the literals of its `outcome=...` and `outcome!=...` clauses (other operators are skipped). For lint rules that check that a
 * node's handler can return the outcomes its edges route on (docs/architecture.md "outcome_coverage").
 *
 * @example
 * ```ts
 * conditionOutcomeLiterals(parseCondition('outcome=fail && context.x=1')); // ['fail']
 * ```
 */
export function conditionOutcomeLiterals(ast: ConditionAst): string[] {
  const values = new Set<string>();
  for (const clause of ast.clauses) {
    if (
      clause.kind === 'comparison' &&
      clause.key.path === 'outcome' &&
      (clause.operator === '=' || clause.operator === '!=')
    ) {
      values.add(clause.literal.value);
    }
  }
  return [...values];
}
