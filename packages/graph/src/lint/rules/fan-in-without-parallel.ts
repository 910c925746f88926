import type { LintRule } from '../diagnostic.js';
import { reachableFromAll } from '../graph-traversal.js';
import { nodeSpan } from '../source-location.js';

/**
 * `fan_in_without_parallel` (WARNING, spec §4.9): a `parallel.fan_in` node can only be reached after a
 * `parallel` node; otherwise `parallel.results` is empty and the fan-in fails.
 */
export const fanInWithoutParallelRule: LintRule = {
  name: 'fan_in_without_parallel',
  apply(graph, context) {
    const afterParallel = reachableFromAll(
      graph,
      [...graph.nodes.values()].filter((node) => context.traitsOf(node).fansOut).map((node) => node.id),
    );
    return [...graph.nodes.values()]
      .filter((node) => context.traitsOf(node).joinsBranches && !afterParallel.has(node.id))
      .map((node) => ({
        rule: 'fan_in_without_parallel',
        severity: 'warning',
        message: `Fan-in node "${node.id}" is not downstream of any parallel node, so it has no branch results to join and fails.`,
        nodeId: node.id,
        fix: `Add a parallel node (shape=component) whose branches lead to "${node.id}", or give "${node.id}" another shape.`,
        span: nodeSpan(node),
      }));
  },
};
