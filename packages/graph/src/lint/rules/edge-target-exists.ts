import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';

/**
 * `edge_target_exists` (ERROR, spec §7.2): both ends of every edge are nodes of the graph. DOT creates
 * nodes on first mention, so this catches graphs produced or rewritten by transforms.
 */
export const edgeTargetExistsRule: LintRule = {
  name: 'edge_target_exists',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    for (const edge of graph.edges) {
      for (const end of [edge.from, edge.to]) {
        if (graph.node(end) !== undefined) continue;
        const suggestion = didYouMean(end, graph.nodes.keys());
        diagnostics.push({
          rule: 'edge_target_exists',
          severity: 'error',
          message: `Edge ${edge.from} -> ${edge.to} refers to node "${end}", which does not exist.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
          edge: { from: edge.from, to: edge.to },
          fix: suggestion
            ? `Change "${end}" to "${suggestion}".`
            : `Declare node "${end}" or remove the edge.`,
          span: edge.span,
        });
      }
    }
    return diagnostics;
  },
};
