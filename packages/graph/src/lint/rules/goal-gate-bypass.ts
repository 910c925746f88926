import { findJoinNode } from '../../find-join-node.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import {
  breadthFirstTree,
  dominatorsOf,
  reachableFrom,
  reachableFromStart,
  shortestPath,
  treePath,
} from '../graph-traversal.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `goal_gate_bypass` (WARNING, docs/architecture.md "Goal gates"): the exit can be reached from the start
 * without visiting a goal gate, and a gate the route never visited is not checked (spec §3.4). A gate inside
 * a parallel branch counts as visited when its parallel node is.
 *
 * The route named in the message is the shortest one that avoids the gate (breadth first, edges in source
 * order). Cost: one breadth-first tree and one dominator computation for the whole graph; a gate on the
 * shortest route to the exit that does not dominate the exit (every such gate is reported) takes one more
 * walk to find the route around it.
 */
export const goalGateBypassRule: LintRule = {
  name: 'goal_gate_bypass',
  apply(graph, context) {
    const start = graph.startNode;
    const exit = graph.exitNode;
    if (start === undefined || exit === undefined) return [];
    const gates = [...graph.nodes.values()].filter(
      (node) => node.goalGate && node.id !== start.id && node.id !== exit.id,
    );
    if (gates.length === 0) return [];
    const tree = breadthFirstTree(graph, start.id);
    // The shortest route to the exit; a gate the exit is not reachable without is never bypassed.
    const route = treePath(tree, exit.id);
    if (route === undefined) return [];
    const onRoute = new Set(route);
    let exitDominators: ReadonlySet<string> | undefined;
    const parallelRegions = [...graph.nodes.values()]
      .filter((node) => context.traitsOf(node).fansOut === true)
      .map((node) => {
        const join = findJoinNode(graph, node.id, { traitsOf: context.traitsOf });
        return { id: node.id, region: reachableFrom(graph, node.id, { stopAt: (id) => id === join }) };
      });
    const reached = reachableFromStart(graph);
    const diagnostics: Diagnostic[] = [];
    for (const gate of gates) {
      if (!reached.has(gate.id)) continue;
      // The nodes a route must avoid to skip the gate. The start is never entered again, so it never counts.
      const avoid = new Set([gate.id]);
      for (const { id, region } of parallelRegions) if (id !== gate.id && region.has(gate.id)) avoid.add(id);
      avoid.delete(start.id);
      let bypass: string[] | undefined;
      if (![...avoid].some((id) => onRoute.has(id))) {
        // The shortest route already avoids them, and removing nodes off a breadth-first route does not
        // change the route: it is the one the search avoiding them finds too.
        bypass = route;
      } else {
        exitDominators ??= dominatorsOf(graph, start.id, exit.id);
        if ([...avoid].some((id) => exitDominators!.has(id))) continue;
        bypass = shortestPath(graph, start.id, exit.id, avoid);
        if (bypass === undefined) continue;
      }
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
