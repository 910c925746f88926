import type { Diagnostic, LintRule } from '../diagnostic.js';
import { nodesReachingAny } from '../graph-traversal.js';

/**
 * `parallel_fan_in` (WARNING, docs/architecture.md "Parallel fan-out"): each branch of a `parallel` node
 * reaches a `parallel.fan_in` node. Without one the engine joins the branches at the first node they all
 * reach (or lets each run to the exit when they never meet), and no fan-in selects a result.
 */
export const parallelFanInRule: LintRule = {
  name: 'parallel_fan_in',
  apply(graph, context) {
    const fanIns = [...graph.nodes.values()]
      .filter((node) => context.traitsOf(node).joinsBranches)
      .map((node) => node.id);
    // A branch reaches a fan-in when its first node can reach one: one backward walk from every fan-in.
    const reachesFanIn = nodesReachingAny(graph, fanIns);
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      if (!context.traitsOf(node).fansOut) continue;
      for (const edge of graph.outgoing(node.id)) {
        if (reachesFanIn.has(edge.to)) continue;
        diagnostics.push({
          rule: 'parallel_fan_in',
          severity: 'warning',
          message: `Branch ${edge.from} -> ${edge.to} of parallel node "${node.id}" never reaches a fan-in node (shape=tripleoctagon): the branches are joined at the first node they all reach (or run on to the exit if they never meet), and no fan-in selects a result.`,
          nodeId: node.id,
          edge: { from: edge.from, to: edge.to },
          fix: `Route the branch starting at "${edge.to}" into a fan-in node (shape=tripleoctagon) placed before the nodes the branches share.`,
          span: edge.span,
        });
      }
    }
    return diagnostics;
  },
};
