import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/** `terminal_node` (ERROR, spec §7.2): exactly one exit node (shape=Msquare, type=exit, or id exit/end). */
export const terminalNodeRule: LintRule = {
  name: 'terminal_node',
  apply(graph) {
    const exits = graph.exitNodes;
    if (exits.length === 0) {
      return [
        {
          rule: 'terminal_node',
          severity: 'error',
          message: `Graph "${graph.id}" has no exit node.`,
          fix: 'Add `exit [shape=Msquare]` and an edge from the last stage to it.',
        },
      ];
    }
    const ids = exits.map((node) => node.id).join(', ');
    return exits.slice(1).map((node) => ({
      rule: 'terminal_node',
      severity: 'error',
      message: `Node "${node.id}" is a second exit node (exit nodes: ${ids}); a pipeline has exactly one.`,
      nodeId: node.id,
      fix: `Route every finished path to one exit node and give "${node.id}" another shape or id.`,
      span: nodeSpan(node),
    }));
  },
};
