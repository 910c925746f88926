import type { LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { nodeSpan } from '../source-location.js';

/**
 * `implicit_node` (WARNING, spec §2.9): a node that is only mentioned in edges (DOT creates it as a
 * plain box) while a declared node has a very similar id: almost always a typo in the edge.
 */
export const implicitNodeRule: LintRule = {
  name: 'implicit_node',
  apply(graph) {
    const nodes = [...graph.nodes.values()];
    const declaredIds = nodes.filter((node) => node.declared === true).map((node) => node.id);
    return nodes
      .filter((node) => node.declared === false)
      .flatMap((node) => {
        const suggestion = didYouMean(node.id, declaredIds);
        if (suggestion === undefined) return [];
        return [
          {
            rule: 'implicit_node',
            severity: 'warning' as const,
            message: `Node "${node.id}" is only mentioned in edges and is never declared; did you mean "${suggestion}"?`,
            nodeId: node.id,
            fix: `Change "${node.id}" to "${suggestion}" in the edge, or declare "${node.id}" with its attributes.`,
            span: nodeSpan(node),
          },
        ];
      });
  },
};
