import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/** `human_gate_edges` (ERROR, spec §4.6): a `wait.human` node has outgoing edges; its options are those edges. */
export const humanGateEdgesRule: LintRule = {
  name: 'human_gate_edges',
  apply(graph) {
    return [...graph.nodes.values()]
      .filter((node) => graph.handlerType(node) === 'wait.human' && graph.outgoing(node.id).length === 0)
      .map((node) => ({
        rule: 'human_gate_edges',
        severity: 'error',
        message: `Human gate "${node.id}" has no outgoing edges, so it has no options to offer and always fails.`,
        nodeId: node.id,
        fix: `Add one labelled edge per choice, e.g. ${node.id} -> next [label="[A] Approve"].`,
        span: nodeSpan(node),
      }));
  },
};
