export { conditionAllowsOutcome } from './condition-allows-outcome.js';
export type {
  ConditionAst,
  ConditionClause,
  ConditionComparisonClause,
  ConditionKey,
  ConditionLiteral,
  ConditionLiteralKind,
  ConditionOperator,
  ConditionSpan,
  ConditionTruthyClause,
} from './condition-ast.js';
export { conditionOutcomeLiterals } from './condition-outcome-literals.js';
export type {
  ConditionSyntaxErrorLocation,
  ConditionSyntaxErrorOptions,
} from './errors/condition-syntax-error.js';
export { ConditionSyntaxError } from './errors/condition-syntax-error.js';
export { evaluateCondition } from './evaluate-condition.js';
export { parseCondition } from './parse-condition.js';
export type { ConditionContext, ConditionInput } from './resolve-condition-key.js';
export { resolveConditionKey } from './resolve-condition-key.js';
