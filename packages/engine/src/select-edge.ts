/**
 * Edge selection, spec §3.3: condition → preferred label → suggested ids → weight → lexical.
 */
import { evaluateCondition } from '@attractor/condition';
import type { GraphEdge } from '@attractor/graph';
import type { Outcome } from './outcome.js';

/** Read access to the context for conditions (the engine's `Context` satisfies it). */
export interface EdgeConditionContext {
  get(key: string): unknown;
}

/** Options of {@link selectEdge}. */
export interface SelectEdgeOptions {
  /** The node's outgoing edges, in declaration order. */
  readonly edges: readonly GraphEdge[];
  readonly outcome: Outcome;
  readonly context: EdgeConditionContext;
  /**
   * When true, only edges whose condition matched are eligible (steps 2–5 are skipped): failure routing
   * (spec §3.7 step 1) follows a FAIL only along a matching conditional edge. Default: false.
   */
  readonly conditionalOnly?: boolean;
}

/** Which step of spec §3.3 chose the edge. */
export type EdgeSelectionReason =
  | 'condition'
  | 'preferred_label'
  | 'suggested_next_id'
  | 'weight'
  | 'lexical';

/** The chosen edge and why. */
export interface EdgeSelection {
  readonly edge: GraphEdge;
  readonly reason: EdgeSelectionReason;
}

const ACCELERATOR_PREFIX = /^(?:\[[^\]\s]+\]\s*|[A-Za-z0-9]\)\s+|[A-Za-z0-9]\s+-\s+)/;

/**
 * Normalises an edge label for preferred-label matching (spec §3.3 step 2): trims, lowercases, and strips an
 * accelerator prefix `[Y] `, `Y) ` or `Y - `.
 *
 * @example
 * normalizeLabel('[A] Approve'); // 'approve'
 */
export function normalizeLabel(label: string): string {
  return label.trim().replace(ACCELERATOR_PREFIX, '').trim().toLowerCase();
}

/**
 * Orders edges by weight (descending), then target id (ascending, by UTF-16 code units), and returns the first
 * (spec §3.3 `best_by_weight_then_lexical`).
 */
export function bestByWeightThenLexical(edges: readonly GraphEdge[]): EdgeSelection | undefined {
  let best: GraphEdge | undefined;
  let tiedOnWeight = false;
  for (const edge of edges) {
    if (best === undefined || edge.weight > best.weight) {
      best = edge;
      tiedOnWeight = false;
    } else if (edge.weight === best.weight) {
      tiedOnWeight = true;
      if (edge.to < best.to) best = edge;
    }
  }
  if (best === undefined) return undefined;
  return { edge: best, reason: tiedOnWeight ? 'lexical' : 'weight' };
}

/**
 * Chooses the next edge after a node completed (spec §3.3). Pure: no side effects.
 *
 * 1. Edges whose `condition` evaluates true (spec §10) against the outcome and context; best by weight, then target id.
 * 2. Else the first unconditional edge whose normalised label equals the normalised `outcome.preferredLabel`.
 * 3. Else the first unconditional edge whose target is in `outcome.suggestedNextIds` (in the list's order).
 * 4–5. Else the unconditional edge with the highest weight, ties broken by the lexically smallest target id.
 *
 * Returns undefined when no edge is eligible (the engine then fails closed,
 * docs/architecture.md "Routing dead ends").
 *
 * @throws {ConditionSyntaxError} when an edge condition does not parse (validation normally rejects it earlier).
 */
export function selectEdge(options: SelectEdgeOptions): EdgeSelection | undefined {
  const { edges, outcome, context } = options;
  if (edges.length === 0) return undefined;
  const input = { outcome: outcome.status, preferredLabel: outcome.preferredLabel ?? '', context };
  const matched = edges.filter(
    (edge) => edge.condition.trim() !== '' && evaluateCondition(edge.condition, input),
  );
  if (matched.length > 0) return { edge: bestByWeightThenLexical(matched)!.edge, reason: 'condition' };
  if (options.conditionalOnly === true) return undefined;

  const unconditional = edges.filter((edge) => edge.condition.trim() === '');
  const preferred = outcome.preferredLabel?.trim() ?? '';
  if (preferred !== '') {
    const wanted = normalizeLabel(preferred);
    const edge = unconditional.find((candidate) => normalizeLabel(candidate.label) === wanted);
    if (edge !== undefined) return { edge, reason: 'preferred_label' };
  }
  for (const suggested of outcome.suggestedNextIds ?? []) {
    const edge = unconditional.find((candidate) => candidate.to === suggested);
    if (edge !== undefined) return { edge, reason: 'suggested_next_id' };
  }
  return bestByWeightThenLexical(unconditional);
}
