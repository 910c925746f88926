export { conditionAllowsOutcome, conditionTruthForOutcome } from './condition-allows-outcome.js';
export type {
  ConditionAst,
  ConditionClause,
  ConditionComparisonClause,
  ConditionExpression,
  ConditionExtension,
  ConditionJunction,
  ConditionKey,
  ConditionLiteral,
  ConditionLiteralKind,
  ConditionNotExpression,
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
export {
  canonicalOutcome,
  compareConditionValues,
  comparisonHolds,
  conditionHoldsWith,
  evaluateCondition,
  OUTCOME_WORD_ALIASES,
} from './evaluate-condition.js';
export type { ParseConditionOptions } from './parse-condition.js';
export { parseCondition } from './parse-condition.js';
export type { ConditionContext, ConditionInput } from './resolve-condition-key.js';
export { resolveConditionKey } from './resolve-condition-key.js';
