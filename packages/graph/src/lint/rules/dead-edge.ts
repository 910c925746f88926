import type { Diagnostic, LintRule } from '../diagnostic.js';
import { edgeSpan } from '../source-location.js';

/**
 * `dead_edge` (WARNING, spec §3.3, issue 19): an unconditional, unlabelled edge that edge selection never takes,
 * because another unconditional edge of the same node always wins: higher `weight`, or the same weight and a target
 * id that sorts first (the lexical tiebreak). `b -> a` and `b -> done` without weights always go to `a`, so a run
 * loops until its visit limit. A labelled edge is not reported (a handler's preferred label can pick it), nor are
 * the edges of human gates and parallel nodes, which use every edge.
 */
export const deadEdgeRule: LintRule = {
  name: 'dead_edge',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      // A human gate offers every edge and a parallel node runs every edge: neither chooses by weight.
      const traits = context.traitsOf(node);
      if (traits.asksHuman === true || traits.fansOut === true) continue;
      const unconditional = graph.outgoing(node.id).filter((edge) => edge.condition.trim() === '');
      if (unconditional.length < 2) continue;
      let best = unconditional[0]!;
      for (const edge of unconditional) {
        if (edge.weight > best.weight || (edge.weight === best.weight && edge.to < best.to)) best = edge;
      }
      for (const edge of unconditional) {
        if (edge === best || edge.to === best.to || edge.label.trim() !== '') continue;
        const why =
          edge.weight < best.weight
            ? `${edge.from} -> ${best.to} has a higher weight (${best.weight} > ${edge.weight})`
            : `both have weight ${edge.weight} and "${best.to}" sorts before "${edge.to}" (spec §3.3's lexical tiebreak)`;
        diagnostics.push({
          rule: 'dead_edge',
          severity: 'warning',
          message: `Edge ${edge.from} -> ${edge.to} is never taken: ${edge.from} -> ${best.to} is also unconditional and always wins, because ${why}.`,
          nodeId: node.id,
          edge: { from: edge.from, to: edge.to },
          fix: `Give ${edge.from} -> ${edge.to} a condition (e.g. condition="outcome=fail"), a weight above ${best.weight}, or remove it.`,
          span: edgeSpan(edge),
        });
      }
    }
    return diagnostics;
  },
};
