/**
 * Graph traversals shared by the structural lint rules (reachability, goal-gate bypass, fan-in
 * reachability, exit reachability).
 */
import type { Graph } from '../graph.js';

/** Options of `reachableFrom`. */
export interface ReachableOptions {
  /** Nodes the walk may not enter (the start itself is always included). */
  readonly avoid?: ReadonlySet<string>;
  /** Stop descending at nodes for which this returns true (they are still included). */
  readonly stopAt?: (id: string) => boolean;
}

/** Ids of every node reachable from `startId` along edges (including `startId`), breadth first. */
export function reachableFrom(graph: Graph, startId: string, options: ReachableOptions = {}): Set<string> {
  const seen = new Set<string>([startId]);
  const queue = [startId];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (id !== startId && options.stopAt?.(id)) continue;
    for (const edge of graph.outgoing(id)) {
      if (seen.has(edge.to) || options.avoid?.has(edge.to)) continue;
      seen.add(edge.to);
      queue.push(edge.to);
    }
  }
  return seen;
}

/** Ids of every node from which `targetId` can be reached (including `targetId`). */
export function nodesReaching(graph: Graph, targetId: string): Set<string> {
  const seen = new Set<string>([targetId]);
  const queue = [targetId];
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const edge of graph.incoming(id)) {
      if (seen.has(edge.from)) continue;
      seen.add(edge.from);
      queue.push(edge.from);
    }
  }
  return seen;
}

/** The node ids of a shortest path from `fromId` to `toId` avoiding `avoid`, or undefined when there is none. */
export function shortestPath(
  graph: Graph,
  fromId: string,
  toId: string,
  avoid: ReadonlySet<string> = new Set(),
): string[] | undefined {
  const previous = new Map<string, string | undefined>([[fromId, undefined]]);
  const queue = [fromId];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (id === toId) {
      const path: string[] = [];
      for (let step: string | undefined = id; step !== undefined; step = previous.get(step))
        path.unshift(step);
      return path;
    }
    for (const edge of graph.outgoing(id)) {
      if (previous.has(edge.to) || avoid.has(edge.to)) continue;
      previous.set(edge.to, id);
      queue.push(edge.to);
    }
  }
  return undefined;
}
