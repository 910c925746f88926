import type { LintRule } from '../diagnostic.js';

/** `exit_no_outgoing` (ERROR, spec §7.2): the exit node has no outgoing edges. */
export const exitNoOutgoingRule: LintRule = {
  name: 'exit_no_outgoing',
  apply(graph) {
    return graph.exitNodes.flatMap((exit) =>
      graph.outgoing(exit.id).map((edge) => ({
        rule: 'exit_no_outgoing',
        severity: 'error' as const,
        message: `Edge ${edge.from} -> ${edge.to} leaves the exit node "${exit.id}"; the run ends at the exit, so it is never taken.`,
        nodeId: exit.id,
        edge: { from: edge.from, to: edge.to },
        fix: `Remove the edge, or route from the stage before "${exit.id}".`,
        span: edge.span,
      })),
    );
  },
};
