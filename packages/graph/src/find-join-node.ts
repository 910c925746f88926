/**
 * The join of a parallel block (docs/architecture.md "Parallel fan-out").
 */
import type { Graph, GraphNode } from './graph.js';
import { type HandlerTraits, handlerTraits } from './handler-traits.js';

/** Options of {@link findJoinNode}. */
export interface FindJoinNodeOptions {
  /**
   * The capabilities of a node's handler: `fansOut` opens a block, `joinsBranches` closes one. Default: the spec's
   * built-in types ({@link handlerTraits} without declarations). The engine passes its registry's.
   */
  readonly traitsOf?: (node: GraphNode) => HandlerTraits;
}

/**
 * The node that closes the parallel block opened by `parallelNodeId`, or undefined. Pure. The one place that works
 * the join out: the engine continues there, the parallel handler stops its branches before it, and lint reads it.
 *
 *
 * Searches breadth-first from each fan-out edge target in edge declaration order, counting nested blocks: a
 * node that fans out (`parallel`) opens a block and the next node that joins branches (`parallel.fan_in`) closes it, so the fan-in of an inner block is
 * never taken for the outer one. Without such a fan-in, the join is the first node every branch reaches (real
 * pipelines let branches converge on an ordinary synthesis node): running everything after it once per branch
 * would multiply each later parallel block by the branch count. Lint `parallel_fan_in` warns about such graphs.
 *
 * The built-in parallel handler stops its branches before this node; the engine continues there after the
 * parallel node when the handler names no other place.
 */
export function findJoinNode(
  graph: Graph,
  parallelNodeId: string,
  options: FindJoinNodeOptions = {},
): string | undefined {
  const traitsOf = options.traitsOf ?? ((node: GraphNode) => handlerTraits(graph, node));
  const starts = [...new Set(graph.outgoing(parallelNodeId).map((edge) => edge.to))];
  for (const start of starts) {
    const join = closingFanIn(graph, start, traitsOf);
    if (join !== undefined) return join;
  }
  if (starts.length < 2) return undefined;
  const [first, ...others] = starts.map((start) => reachableInOrder(graph, start, parallelNodeId));
  const otherSets = others.map((order) => new Set(order));
  return first!.find((id) => !starts.includes(id) && otherSets.every((reachable) => reachable.has(id)));
}

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

function closingFanIn(
  graph: Graph,
  startId: string,
  traitsOf: (node: GraphNode) => HandlerTraits,
): string | undefined {
  // A cycle through a parallel node would open blocks forever: no real nesting is deeper than the number of
  // parallel nodes, so deeper states are dropped and the search always ends.
  const maxDepth = [...graph.nodes.values()].filter((node) => traitsOf(node).fansOut === true).length;
  const queue: { id: string; depth: number }[] = [{ id: startId, depth: 0 }];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const { id, depth } = queue.shift()!;
    const node = graph.node(id);
    const key = `${id}#${depth}`;
    if (node === undefined || seen.has(key)) continue;
    seen.add(key);
    const traits = traitsOf(node);
    let next = depth;
    if (traits.fansOut === true) next = depth + 1;
    else if (traits.joinsBranches === true) {
      if (depth === 0) return id;
      next = depth - 1;
    }
    if (next > maxDepth) continue;
    for (const outgoing of graph.outgoing(id)) queue.push({ id: outgoing.to, depth: next });
  }
  return undefined;
}
