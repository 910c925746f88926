/**
 * Condition analysis shared by the routing lint rules: parse an edge's condition without throwing,
 * and read what it says about `outcome`.
 */
import {
  type ConditionAst,
  ConditionSyntaxError,
  canonicalOutcome,
  parseCondition,
} from '@attractor/condition';
import type { Graph, GraphEdge } from '../graph.js';

/** The outcome statuses of spec §5.2 that every handler may produce or conditions may name, in the spec's order. */
export const STANDARD_OUTCOMES: ReadonlySet<string> = new Set([
  'success',
  'partial_success',
  'retry',
  'fail',
  'skipped',
]);

/** A condition's parse result: the AST, or the syntax error `condition_syntax` reports. */
export type ParsedCondition =
  | { readonly ast: ConditionAst; readonly error?: undefined }
  | { readonly ast?: undefined; readonly error: ConditionSyntaxError };

const CACHE_LIMIT = 4096;
const parsed = new Map<string, ParsedCondition>();

/**
 * Parses a condition once per distinct text (several rules read every edge's condition; a
 * generated pipeline repeats the same few conditions hundreds of times). Never throws a
 * `ConditionSyntaxError`: it is returned as `error`.
 */
export function parseConditionOnce(text: string): ParsedCondition {
  const cached = parsed.get(text);
  if (cached !== undefined) return cached;
  let result: ParsedCondition;
  try {
    result = { ast: parseCondition(text) };
  } catch (error) {
    if (!ConditionSyntaxError.isInstance(error)) throw error;
    result = { error };
  }
  if (parsed.size >= CACHE_LIMIT) parsed.clear();
  parsed.set(text, result);
  return result;
}

/** The parsed condition of an edge; undefined when it is empty or does not parse (`condition_syntax` reports that). */
export function edgeCondition(edge: GraphEdge): ConditionAst | undefined {
  if (edge.condition === '') return undefined;
  return parseConditionOnce(edge.condition).ast;
}

/**
 * One `outcome=X` / `outcome!=X` clause; `offset`/`length` locate the literal in the condition text. `value` is the
 * status the literal stands for (Fabro's `succeeded` is `success`, see `canonicalOutcome`).
 */
export interface OutcomeComparison {
  readonly operator: '=' | '!=';
  readonly value: string;
  readonly offset: number;
  readonly length: number;
}

/** `outcomeComparisons` of each condition AST (they are cached by text, so a few ASTs serve every edge). */
const comparisonsByCondition = new WeakMap<ConditionAst, readonly OutcomeComparison[]>();

/** The `outcome=X` / `outcome!=X` clauses of a condition (the same array for the same AST: do not change it). */
export function outcomeComparisons(condition: ConditionAst): readonly OutcomeComparison[] {
  const cached = comparisonsByCondition.get(condition);
  if (cached !== undefined) return cached;
  const found: OutcomeComparison[] = [];
  for (const clause of condition.clauses) {
    if (
      clause.kind === 'comparison' &&
      clause.key.path === 'outcome' &&
      (clause.operator === '=' || clause.operator === '!=')
    ) {
      found.push({
        operator: clause.operator,
        value: canonicalOutcome(clause.literal.value),
        offset: clause.literal.span.offset,
        length: clause.literal.span.length,
      });
    }
  }
  comparisonsByCondition.set(condition, found);
  return found;
}

/**
 * The custom outcome words (docs/architecture.md "Outcomes": any word other than {@link STANDARD_OUTCOMES})
 * that the edge conditions of `graph` compare `outcome` with (`bug` of `outcome=bug` or `outcome!=bug`), in
 * order of appearance without repeats. Conditions that do not parse are skipped (`condition_syntax` reports
 * them).
 */
export function customOutcomeWords(graph: Graph): string[] {
  const words = new Set<string>();
  for (const edge of graph.edges) {
    const condition = edgeCondition(edge);
    if (condition === undefined) continue;
    for (const clause of outcomeComparisons(condition)) {
      if (!STANDARD_OUTCOMES.has(clause.value)) words.add(clause.value);
    }
  }
  return [...words];
}

/**
 * The literals a condition compares any of `keys` with (`key=literal` or `key!=literal`, keys as written, e.g.
 * `context.tool_stdout`), in source order, as the condition language decodes them (spec §10.2). `[]` for an empty
 * condition or one that does not parse (`condition_syntax` reports it).
 *
 * @example
 * comparedLiterals('context.tool_stdout!=0 && outcome=success', ['context.tool_stdout']); // ['0']
 */
export function comparedLiterals(condition: string, keys: readonly string[]): string[] {
  if (condition.trim() === '') return [];
  const ast = parseConditionOnce(condition).ast;
  if (ast === undefined) return [];
  const values: string[] = [];
  for (const clause of ast.clauses) {
    if (
      clause.kind === 'comparison' &&
      (clause.operator === '=' || clause.operator === '!=') &&
      keys.includes(clause.key.path)
    ) {
      values.push(clause.literal.value);
    }
  }
  return values;
}
