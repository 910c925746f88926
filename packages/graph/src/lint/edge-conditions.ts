/**
 * Condition analysis shared by the routing lint rules: parse an edge's condition without throwing,
 * and read what it says about `outcome`.
 */
import { type ConditionAst, ConditionSyntaxError, parseCondition } from '@attractor/condition';
import type { GraphEdge } from '../graph.js';

/** The outcome statuses of spec §5.2 that every handler may produce or conditions may name. */
export const STANDARD_OUTCOMES: ReadonlySet<string> = new Set([
  'success',
  'partial_success',
  'retry',
  'fail',
  'skipped',
]);

/** The parsed condition of an edge; undefined when it is empty or does not parse (`condition_syntax` reports that). */
export function edgeCondition(edge: GraphEdge): ConditionAst | undefined {
  if (edge.condition === '') return undefined;
  try {
    return parseCondition(edge.condition);
  } catch (error) {
    // A syntax error is reported once, by condition_syntax; other rules treat the edge as opaque.
    if (ConditionSyntaxError.isInstance(error)) return undefined;
    throw error;
  }
}

/** The `outcome=X` / `outcome!=X` clauses of a condition. */
export function outcomeComparisons(
  condition: ConditionAst,
): { readonly operator: '=' | '!='; readonly value: string; readonly offset: number; readonly length: number }[] {
  const found = [];
  for (const clause of condition.clauses) {
    if (clause.kind === 'comparison' && clause.key.path === 'outcome') {
      found.push({
        operator: clause.operator,
        value: clause.literal.value,
        offset: clause.literal.span.offset,
        length: clause.literal.span.length,
      });
    }
  }
  return found;
}

/**
 * Whether a condition can hold when the node's outcome is `outcome`: false only when one of its
 * `outcome` clauses rules that value out. Context clauses are assumed satisfiable.
 */
export function canMatchOutcome(condition: ConditionAst, outcome: string): boolean {
  return outcomeComparisons(condition).every((clause) =>
    clause.operator === '=' ? clause.value === outcome : clause.value !== outcome,
  );
}
