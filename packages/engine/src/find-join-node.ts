/**
 * The join of a parallel block (DESIGN.md "Parallel fan-out").
 */
import type { Graph } from '@attractor/graph';

/**
 * The node where the branches of parallel node `parallelNodeId` join: the first node of handler type
 * `parallel.fan_in` found breadth-first from the parallel node's edge targets (edge declaration order), or
 * undefined when no branch reaches one. Pure.
 */
export function findJoinNode(graph: Graph, parallelNodeId: string): string | undefined {
  const seen = new Set<string>([parallelNodeId]);
  const queue = graph.outgoing(parallelNodeId).map((edge) => edge.to);
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = graph.node(id);
    if (node === undefined) continue;
    if (graph.handlerType(node) === 'parallel.fan_in') return id;
    for (const edge of graph.outgoing(id)) if (!seen.has(edge.to)) queue.push(edge.to);
  }
  return undefined;
}
