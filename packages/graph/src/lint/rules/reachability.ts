import type { LintRule } from '../diagnostic.js';
import { reachableFromStart } from '../graph-traversal.js';
import { nodeSpan } from '../source-location.js';

/**
 * `reachability` (ERROR, spec §7.2, docs/architecture.md "Reachability"): every node is reachable from the
 * start node.
 */
export const reachabilityRule: LintRule = {
  name: 'reachability',
  apply(graph) {
    const start = graph.startNode;
    if (start === undefined) return [];
    const reached = reachableFromStart(graph);
    return [...graph.nodes.values()]
      .filter((node) => !reached.has(node.id))
      .map((node) => ({
        rule: 'reachability',
        severity: 'error',
        message: `Node "${node.id}" cannot be reached from the start node "${start.id}".`,
        nodeId: node.id,
        fix: `Add an edge into "${node.id}" from a reachable node, or remove it.`,
        span: nodeSpan(node),
      }));
  },
};
