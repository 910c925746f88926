/**
 * Graph traversals shared by the structural lint rules (reachability, goal-gate bypass, fan-in
 * reachability, exit reachability). Every function here is linear in the size of the graph (nodes plus
 * edges), apart from `dominatorsOf`, which is near-linear on pipelines (see there).
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
  return reachableFromAll(graph, [startId], options);
}

/**
 * Ids of every node reachable from any of `startIds` along edges (including them), breadth first: the
 * union of `reachableFrom` of each, in one walk. `stopAt` is not applied to the starts themselves.
 */
export function reachableFromAll(
  graph: Graph,
  startIds: Iterable<string>,
  options: ReachableOptions = {},
): Set<string> {
  const seen = new Set<string>(startIds);
  const starts = new Set(seen);
  const queue = [...seen];
  for (let head = 0; head < queue.length; head += 1) {
    const id = queue[head]!;
    if (!starts.has(id) && options.stopAt?.(id)) continue;
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
  return nodesReachingAny(graph, [targetId]);
}

/** Ids of every node from which any of `targetIds` can be reached (including them), in one walk. */
export function nodesReachingAny(graph: Graph, targetIds: Iterable<string>): Set<string> {
  const seen = new Set<string>(targetIds);
  const queue = [...seen];
  for (let head = 0; head < queue.length; head += 1) {
    for (const edge of graph.incoming(queue[head]!)) {
      if (seen.has(edge.from)) continue;
      seen.add(edge.from);
      queue.push(edge.from);
    }
  }
  return seen;
}

/**
 * The breadth-first search tree from `fromId`: for every node reached, the node it was first reached from
 * (`undefined` for `fromId`). Edges are followed in `graph.outgoing` order, so the tree is the one
 * `shortestPath` builds without `avoid`.
 */
export function breadthFirstTree(graph: Graph, fromId: string): Map<string, string | undefined> {
  const previous = new Map<string, string | undefined>([[fromId, undefined]]);
  const queue = [fromId];
  for (let head = 0; head < queue.length; head += 1) {
    const id = queue[head]!;
    for (const edge of graph.outgoing(id)) {
      if (previous.has(edge.to)) continue;
      previous.set(edge.to, id);
      queue.push(edge.to);
    }
  }
  return previous;
}

/** The node ids from the root of a `breadthFirstTree` to `toId`, or undefined when `toId` was not reached. */
export function treePath(tree: ReadonlyMap<string, string | undefined>, toId: string): string[] | undefined {
  if (!tree.has(toId)) return undefined;
  const path: string[] = [];
  for (let step: string | undefined = toId; step !== undefined; step = tree.get(step)) path.push(step);
  return path.reverse();
}

/**
 * The node ids of a shortest path from `fromId` to `toId` avoiding `avoid`, or undefined when there is none.
 * Among shortest paths, the one breadth-first search finds following edges in `graph.outgoing` order.
 */
export function shortestPath(
  graph: Graph,
  fromId: string,
  toId: string,
  avoid: ReadonlySet<string> = new Set(),
): string[] | undefined {
  const previous = new Map<string, string | undefined>([[fromId, undefined]]);
  const queue = [fromId];
  for (let head = 0; head < queue.length; head += 1) {
    const id = queue[head]!;
    if (id === toId) return treePath(previous, id);
    for (const edge of graph.outgoing(id)) {
      if (previous.has(edge.to) || avoid.has(edge.to)) continue;
      previous.set(edge.to, id);
      queue.push(edge.to);
    }
  }
  return undefined;
}

/**
 * The dominators of `targetId` with respect to `rootId`: the nodes every path from the root to the target
 * passes through, the root and the target included. Empty when the target cannot be reached from the root.
 *
 * Uses the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001)
 * over the nodes reachable from the root, in reverse postorder: a few passes over the edges for
 * pipelines (the number of passes grows with how deeply loops nest, not with the size of the graph).
 */
export function dominatorsOf(graph: Graph, rootId: string, targetId: string): Set<string> {
  // Depth-first postorder of the nodes reachable from the root (iterative, no recursion limit).
  const postorder: string[] = [];
  const number = new Map<string, number>();
  const visited = new Set<string>([rootId]);
  const stack: Array<{ id: string; next: number }> = [{ id: rootId, next: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const edges = graph.outgoing(frame.id);
    if (frame.next < edges.length) {
      const to = edges[frame.next]!.to;
      frame.next += 1;
      if (!visited.has(to)) {
        visited.add(to);
        stack.push({ id: to, next: 0 });
      }
      continue;
    }
    stack.pop();
    number.set(frame.id, postorder.length);
    postorder.push(frame.id);
  }
  const target = number.get(targetId);
  if (target === undefined) return new Set();
  // idom[i]: postorder number of the immediate dominator of node i; -1 while unknown.
  const root = postorder.length - 1;
  const idom = new Int32Array(postorder.length).fill(-1);
  idom[root] = root;
  const predecessors = postorder.map((id) => {
    const numbers: number[] = [];
    for (const edge of graph.incoming(id)) {
      const from = number.get(edge.from);
      if (from !== undefined) numbers.push(from);
    }
    return numbers;
  });
  const intersect = (left: number, right: number): number => {
    let a = left;
    let b = right;
    while (a !== b) {
      while (a < b) a = idom[a]!;
      while (b < a) b = idom[b]!;
    }
    return a;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (let node = root - 1; node >= 0; node -= 1) {
      let candidate = -1;
      for (const predecessor of predecessors[node]!) {
        if (idom[predecessor] === -1) continue;
        candidate = candidate === -1 ? predecessor : intersect(predecessor, candidate);
      }
      if (idom[node] !== candidate) {
        idom[node] = candidate;
        changed = true;
      }
    }
  }
  const dominators = new Set<string>();
  for (let node = target; ; node = idom[node]!) {
    dominators.add(postorder[node]!);
    if (node === root) return dominators;
  }
}

const reachedFromStart = new WeakMap<Graph, ReadonlySet<string>>();

/**
 * The nodes reachable from the start node along edges and along the jumps the engine makes
 * (docs/architecture.md "Reachability"): a reached node's `retry_target` and `fallback_retry_target` (taken
 * on failure and by goal gates, spec §3.4, §3.7) and the graph's own, which any reached node can take.
 * Computed once per graph and shared by the rules that need it (the graph is immutable). Empty when the graph
 * has no single start node. Do not modify the returned set.
 */
export function reachableFromStart(graph: Graph): ReadonlySet<string> {
  let reached = reachedFromStart.get(graph);
  if (reached === undefined) {
    const start = graph.startNode;
    reached = start === undefined ? new Set() : reachableWithJumps(graph, start.id);
    reachedFromStart.set(graph, reached);
  }
  return reached;
}

function reachableWithJumps(graph: Graph, startId: string): Set<string> {
  const graphTargets = [graph.settings.retryTarget, graph.settings.fallbackRetryTarget];
  const seen = new Set<string>();
  const queue: string[] = [];
  const visit = (id: string | undefined) => {
    if (id === undefined || seen.has(id) || graph.node(id) === undefined) return;
    seen.add(id);
    queue.push(id);
  };
  visit(startId);
  for (const id of graphTargets) visit(id);
  for (let head = 0; head < queue.length; head += 1) {
    const id = queue[head]!;
    for (const edge of graph.outgoing(id)) visit(edge.to);
    const node = graph.node(id);
    visit(node?.retryTarget);
    visit(node?.fallbackRetryTarget);
  }
  return seen;
}
