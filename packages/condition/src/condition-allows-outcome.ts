import type { ConditionAst, ConditionExpression } from './condition-ast.js';
import { comparisonHolds } from './evaluate-condition.js';

/** Three-valued truth: known true, known false, or depends on something else (the context, the label). */
type Truth = boolean | undefined;

function truthFor(expression: ConditionExpression, outcome: string): Truth {
  switch (expression.kind) {
    case 'truthy':
      return expression.key.path === 'outcome' ? outcome !== '' : undefined;
    case 'comparison':
      return expression.key.path === 'outcome' ? comparisonHolds(expression, outcome) : undefined;
    case 'not': {
      const operand = truthFor(expression.operand, outcome);
      return operand === undefined ? undefined : !operand;
    }
    case 'and': {
      let result: Truth = true;
      for (const operand of expression.operands) {
        const value = truthFor(operand, outcome);
        if (value === false) return false;
        if (value === undefined) result = undefined;
      }
      return result;
    }
    case 'or': {
      let result: Truth = false;
      for (const operand of expression.operands) {
        const value = truthFor(operand, outcome);
        if (value === true) return true;
        if (value === undefined) result = undefined;
      }
      return result;
    }
  }
}

/**
 * What a condition says when the node's outcome is `outcome` and nothing else is known: `true` when it holds
 * whatever the context and the preferred label, `false` when it cannot hold, `undefined` when it depends on them
 * (`context.mode=fast`). See spec §10.3.
 *
 * @example
 * ```ts
 * conditionTruthForOutcome(parseCondition('outcome=success || outcome=partial_success'), 'success'); // true
 * conditionTruthForOutcome(parseCondition('outcome=success && context.x=1'), 'success'); // undefined
 * ```
 */
export function conditionTruthForOutcome(ast: ConditionAst, outcome: string): boolean | undefined {
  return ast.expression === undefined ? true : truthFor(ast.expression, outcome);
}

/**
 * Whether a condition can hold when the node's outcome is `outcome`, whatever the context and the
 * preferred label: false only when its `outcome` clauses rule that outcome out
 * (`outcome=fail` for `success`, `outcome!=success` for `success`). Clauses on other keys are assumed
 * satisfiable. For lint rules that ask whether any edge of a node can be taken on success or on
 * failure (docs/architecture.md "condition_coverage"), see spec §10.3.
 *
 * @example
 * ```ts
 * conditionAllowsOutcome(parseCondition('outcome=fail && context.x=1'), 'fail'); // true
 * conditionAllowsOutcome(parseCondition('outcome!=success'), 'success'); // false
 * ```
 */
export function conditionAllowsOutcome(ast: ConditionAst, outcome: string): boolean {
  return conditionTruthForOutcome(ast, outcome) !== false;
}
