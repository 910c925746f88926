import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/**
 * `human_gate_edges` (WARNING, spec §4.6): a `wait.human` node has outgoing edges; its options are those edges. A gate
 * without any is legal: §4.6 has it return FAIL at run time, and authors use it as a deliberate stop (a
 * non-interactive run then exits non-zero), so it is reported but does not block a run.
 */
export const humanGateEdgesRule: LintRule = {
  name: 'human_gate_edges',
  apply(graph, context) {
    return [...graph.nodes.values()]
      .filter((node) => context.traitsOf(node).asksHuman && graph.outgoing(node.id).length === 0)
      .map((node) => ({
        rule: 'human_gate_edges',
        severity: 'warning',
        message: `Human gate "${node.id}" has no outgoing edges: it has no options to offer, so the run stops there with FAIL (spec §4.6).`,
        nodeId: node.id,
        fix: `If the stop is not deliberate, add one labelled edge per choice, e.g. ${node.id} -> next [label="[A] Approve"].`,
        span: nodeSpan(node),
      }));
  },
};
