import type { Diagnostic, LintRule } from '../diagnostic.js';
import { reachableFrom } from '../graph-traversal.js';

/**
 * `parallel_fan_in` (WARNING, DESIGN.md "Parallel fan-out"): each branch of a `parallel` node reaches a
 * `parallel.fan_in` node; a branch that never does runs to a dead end and its result is never joined.
 */
export const parallelFanInRule: LintRule = {
  name: 'parallel_fan_in',
  apply(graph) {
    const isFanIn = (id: string) => {
      const node = graph.node(id);
      return node !== undefined && graph.handlerType(node) === 'parallel.fan_in';
    };
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      if (graph.handlerType(node) !== 'parallel') continue;
      for (const edge of graph.outgoing(node.id)) {
        const reached = reachableFrom(graph, edge.to, { stopAt: isFanIn });
        if ([...reached].some(isFanIn)) continue;
        diagnostics.push({
          rule: 'parallel_fan_in',
          severity: 'warning',
          message: `Branch ${edge.from} -> ${edge.to} of parallel node "${node.id}" never reaches a fan-in node (shape=tripleoctagon): the branch runs on to a terminal or dead end and its result is never joined.`,
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
