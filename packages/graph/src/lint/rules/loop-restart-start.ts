import type { LintRule } from '../diagnostic.js';
import { attributeSpan } from '../source-location.js';

/**
 * `loop_restart_start` (ERROR, spec §2.7): a `loop_restart` edge continues a fresh run at its target,
 * so it must not target the start node (which accepts no incoming edges); point it at the first stage.
 */
export const loopRestartStartRule: LintRule = {
  name: 'loop_restart_start',
  apply(graph) {
    const start = graph.startNode;
    if (start === undefined) return [];
    return graph
      .incoming(start.id)
      .filter((edge) => edge.loopRestart)
      .map((edge) => {
        const first = graph.outgoing(start.id)[0]?.to;
        return {
          rule: 'loop_restart_start',
          severity: 'error',
          message: `loop_restart edge ${edge.from} -> ${edge.to} targets the start node "${start.id}", which accepts no incoming edges.`,
          nodeId: start.id,
          edge: { from: edge.from, to: edge.to },
          fix: first
            ? `Point it at "${first}", where the restarted run should continue.`
            : 'Point it at the first stage after the start node.',
          span: attributeSpan(edge.attributes.loop_restart, edge.span),
        };
      });
  },
};
