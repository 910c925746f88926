import type { LintRule } from '../diagnostic.js';

/**
 * `start_no_incoming` (ERROR, spec §7.2): nothing routes back into the start node. `loop_restart`
 * edges into it are reported by `loop_restart_start` instead.
 */
export const startNoIncomingRule: LintRule = {
  name: 'start_no_incoming',
  apply(graph) {
    const start = graph.startNode;
    if (start === undefined) return [];
    return graph
      .incoming(start.id)
      .filter((edge) => !edge.loopRestart)
      .map((edge) => ({
        rule: 'start_no_incoming',
        severity: 'error',
        message: `Edge ${edge.from} -> ${edge.to} enters the start node "${start.id}"; the start node must have no incoming edges.`,
        nodeId: start.id,
        edge: { from: edge.from, to: edge.to },
        fix: `Point the edge at the first stage after "${start.id}" instead.`,
        span: edge.span,
      }));
  },
};
