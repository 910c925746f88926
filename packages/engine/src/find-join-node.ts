/**
 * The join of a parallel block (DESIGN.md "Parallel fan-out").
 */
import type { Graph } from '@attractor/graph';

function reachableInOrder(graph: Graph, startId: string, excluded: string): string[] {
  const order: string[] = [];
  const seen = new Set<string>([excluded]);
  const queue = [startId];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (seen.has(id) || graph.node(id) === undefined) continue;
    seen.add(id);
    order.push(id);
    for (const edge of graph.outgoing(id)) if (!seen.has(edge.to)) queue.push(edge.to);
  }
  return order;
}

/**
 * The node where the branches of parallel node `parallelNodeId` join. Pure.
 *
 * 1. The first node of handler type `parallel.fan_in` found breadth-first from the fan-out edge targets (edge
 *    declaration order) — the join of DESIGN.md.
 * 2. Else the first node every branch reaches (breadth-first from the first branch): real pipelines let
 *    branches converge on an ordinary node (a synthesis stage) instead of a fan-in.
 * 3. Else undefined.
 *
 * The parallel handler stops its branches before this node; the engine continues there after the parallel node.
 */
export function findJoinNode(graph: Graph, parallelNodeId: string): string | undefined {
  const starts = [...new Set(graph.outgoing(parallelNodeId).map((edge) => edge.to))];
  if (starts.length === 0) return undefined;
  const orders = starts.map((start) => reachableInOrder(graph, start, parallelNodeId));
  const queue = [...starts];
  const seen = new Set<string>([parallelNodeId]);
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = graph.node(id);
    if (node === undefined) continue;
    if (graph.handlerType(node) === 'parallel.fan_in') return id;
    for (const edge of graph.outgoing(id)) if (!seen.has(edge.to)) queue.push(edge.to);
  }
  if (starts.length < 2) return undefined;
  const others = orders.slice(1).map((order) => new Set(order));
  return orders[0]!.find((id) => !starts.includes(id) && others.every((reachable) => reachable.has(id)));
}
