import type { LintRule } from '../diagnostic.js';
import { nodesReaching, reachableFromStart } from '../graph-traversal.js';
import { nodeSpan } from '../source-location.js';

/**
 * `exit_unreachable` (WARNING): a node reachable from the start that has outgoing edges, but from which
 * no path leads to the exit: once there, the run loops until a loop guard stops it.
 */
export const exitUnreachableRule: LintRule = {
  name: 'exit_unreachable',
  apply(graph) {
    const start = graph.startNode;
    const exit = graph.exitNode;
    if (start === undefined || exit === undefined) return [];
    const reachesExit = nodesReaching(graph, exit.id);
    const reached = reachableFromStart(graph);
    return [...graph.nodes.values()]
      .filter(
        (node) => reached.has(node.id) && !reachesExit.has(node.id) && graph.outgoing(node.id).length > 0,
      )
      .map((node) => ({
        rule: 'exit_unreachable',
        severity: 'warning',
        message: `No path leads from "${node.id}" to the exit "${exit.id}": a run that gets there can only loop until a loop guard stops it.`,
        nodeId: node.id,
        fix: `Add an edge from "${node.id}" (or a node after it) towards "${exit.id}".`,
        span: nodeSpan(node),
      }));
  },
};
