import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/** `start_node` (ERROR, spec §7.2): exactly one start node (shape=Mdiamond, type=start, or id start/Start). */
export const startNodeRule: LintRule = {
  name: 'start_node',
  apply(graph) {
    const starts = graph.startNodes;
    if (starts.length === 0) {
      return [
        {
          rule: 'start_node',
          severity: 'error',
          message: `Graph "${graph.id}" has no start node.`,
          fix: 'Add `start [shape=Mdiamond]` and an edge from it to the first stage.',
        },
      ];
    }
    const ids = starts.map((node) => node.id).join(', ');
    return starts.slice(1).map((node) => ({
      rule: 'start_node',
      severity: 'error',
      message: `Node "${node.id}" is a second start node (start nodes: ${ids}); a pipeline has exactly one.`,
      nodeId: node.id,
      fix: `Keep one start node: give "${node.id}" another shape and id, or remove it.`,
      span: nodeSpan(node),
    }));
  },
};
