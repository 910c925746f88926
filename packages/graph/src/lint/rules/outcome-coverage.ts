import type { Graph, GraphNode } from '../../graph.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { edgeCondition, outcomeComparisons, STANDARD_OUTCOMES } from '../edge-conditions.js';
import { attributeSpan, spanInAttribute } from '../source-location.js';

const PROMPT_OUTCOME = /\boutcome\s*[=:]\s*["'`]?([a-z][a-z_]*)/g;

/**
 * `outcome_coverage` (WARNING, docs/architecture.md "Outcomes"): a condition names an outcome its node's
 * handler does not declare (`outcomes` of its registered declaration, else of the spec's built-in type)
 * (`outcome=partial_success` after a human gate), a likely misspelt outcome (`outcome=sucess`), or a node's
 * prompt asks for a custom outcome that no edge routes.
 */
export const outcomeCoverageRule: LintRule = {
  name: 'outcome_coverage',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      checkEdges(graph, node, context.traitsOf(node).outcomes, diagnostics);
      checkPrompt(graph, node, diagnostics);
    }
    return diagnostics;
  },
};

function checkEdges(
  graph: Graph,
  node: GraphNode,
  possible: readonly string[] | undefined,
  diagnostics: Diagnostic[],
): void {
  const handlerType = graph.handlerType(node);
  for (const edge of graph.outgoing(node.id)) {
    const condition = edgeCondition(edge);
    const attribute = edge.attributes.condition;
    if (condition === undefined || attribute === undefined) continue;
    for (const clause of outcomeComparisons(condition)) {
      // Made only for a finding: most clauses are fine, and locating one in the source costs.
      const where = () => ({
        nodeId: node.id,
        edge: { from: edge.from, to: edge.to },
        span: spanInAttribute(graph, attribute, clause),
      });
      const typo = STANDARD_OUTCOMES.has(clause.value)
        ? undefined
        : didYouMean(clause.value, STANDARD_OUTCOMES);
      if (typo !== undefined) {
        diagnostics.push({
          rule: 'outcome_coverage',
          severity: 'warning',
          message: `Edge ${edge.from} -> ${edge.to} tests outcome${clause.operator}${clause.value}, which is not a status. Did you mean "${typo}"?`,
          ...where(),
          fix: `Change it to outcome${clause.operator}${typo}.`,
        });
      } else if (possible !== undefined && clause.operator === '=' && !possible.includes(clause.value)) {
        diagnostics.push({
          rule: 'outcome_coverage',
          severity: 'warning',
          message: `Edge ${edge.from} -> ${edge.to} is never taken: "${node.id}" is a ${handlerType} node, which returns only ${possible.join(', ')}, never ${clause.value}.`,
          ...where(),
          fix: `Test one of ${possible.join(', ')}, or remove the edge.`,
        });
      }
    }
  }
}

function checkPrompt(graph: Graph, node: GraphNode, diagnostics: Diagnostic[]): void {
  const edges = graph.outgoing(node.id);
  if (edges.length === 0 || edges.some((edge) => edge.condition === '')) return;
  const routed = new Set<string>();
  for (const edge of edges) {
    const condition = edgeCondition(edge);
    if (condition === undefined) return;
    for (const clause of outcomeComparisons(condition)) {
      // `outcome!=x` routes every other outcome, custom ones included.
      if (clause.operator === '!=') return;
      routed.add(clause.value);
    }
  }
  const asked = new Set<string>();
  for (const match of node.prompt.matchAll(PROMPT_OUTCOME)) {
    const word = match[1]!;
    if (!STANDARD_OUTCOMES.has(word) && !routed.has(word)) asked.add(word);
  }
  for (const word of asked) {
    diagnostics.push({
      rule: 'outcome_coverage',
      severity: 'warning',
      message: `The prompt of "${node.id}" asks for outcome "${word}", but no edge from "${node.id}" routes it: the run would stop there.`,
      nodeId: node.id,
      fix: `Add an edge from "${node.id}" with condition="outcome=${word}".`,
      span: attributeSpan(node.attributes.prompt),
    });
  }
}
