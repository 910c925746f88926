import type { Diagnostic, LintRule } from '../diagnostic.js';
import { reachableFrom, shortestPath } from '../graph-traversal.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `goal_gate_bypass` (WARNING, DESIGN.md "Goal gates"): the exit can be reached from the start without
 * visiting a goal gate, and a gate the route never visited is not checked (spec §3.4). A gate inside a
 * parallel branch counts as visited when its parallel node is.
 */
export const goalGateBypassRule: LintRule = {
  name: 'goal_gate_bypass',
  apply(graph) {
    const start = graph.startNode;
    const exit = graph.exitNode;
    if (start === undefined || exit === undefined) return [];
    const parallelRegions = [...graph.nodes.values()]
      .filter((node) => graph.handlerType(node) === 'parallel')
      .map((node) => ({
        id: node.id,
        region: reachableFrom(graph, node.id, {
          stopAt: (id) => graph.handlerType(graph.node(id) ?? node) === 'parallel.fan_in',
        }),
      }));
    const diagnostics: Diagnostic[] = [];
    for (const gate of graph.nodes.values()) {
      if (!gate.goalGate || gate.id === start.id || gate.id === exit.id) continue;
      const avoid = new Set([gate.id]);
      for (const { id, region } of parallelRegions) if (id !== gate.id && region.has(gate.id)) avoid.add(id);
      if (!reachableFrom(graph, start.id).has(gate.id)) continue;
      const bypass = shortestPath(graph, start.id, exit.id, avoid);
      if (bypass === undefined) continue;
      diagnostics.push({
        rule: 'goal_gate_bypass',
        severity: 'warning',
        message: `Goal gate "${gate.id}" can be bypassed: the route ${bypass.join(' -> ')} never visits it, and an unvisited gate is not checked.`,
        nodeId: gate.id,
        fix: `Route every path to "${exit.id}" through "${gate.id}", or drop goal_gate if the stage is optional.`,
        span: attributeSpan(gate.attributes.goal_gate, nodeSpan(gate)),
      });
    }
    return diagnostics;
  },
};
