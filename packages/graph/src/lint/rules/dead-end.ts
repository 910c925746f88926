import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/**
 * `dead_end` (WARNING, docs/architecture.md "Routing dead ends"): a node other than the exit with no outgoing
 * edges ends the run there without passing the exit's goal-gate check. Human gates are
 * `human_gate_edges`'s; nodes inside parallel branches may end at a dead end on purpose, but are
 * still reported.
 */
export const deadEndRule: LintRule = {
  name: 'dead_end',
  apply(graph, context) {
    const exits = new Set(graph.exitNodes.map((node) => node.id));
    return [...graph.nodes.values()]
      .filter(
        (node) =>
          !exits.has(node.id) && !context.traitsOf(node).asksHuman && graph.outgoing(node.id).length === 0,
      )
      .map((node) => ({
        rule: 'dead_end',
        severity: 'warning',
        message: `Node "${node.id}" has no outgoing edges, so the run stops there without reaching the exit.`,
        nodeId: node.id,
        fix: `Add an edge from "${node.id}" to the next stage or to the exit.`,
        span: nodeSpan(node),
      }));
  },
};
