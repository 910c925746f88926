/**
 * Which edges of a pipeline simulated runs have taken, and how often each should be: the state `attractor test
 * --routes` keeps across its runs, and that a {@link RouteFinder} reads to steer the next run towards the rest.
 */
import type { Graph, GraphEdge } from '@attractor/graph';
import { distancesTo } from './route-finder.js';

/** Edges taken by simulated runs of one graph (see {@link createRouteCoverage}). */
export interface RouteCoverage {
  /** The graph whose edges are counted (a route finder steers only its walks). */
  readonly graph: Graph;
  /** How many times the edge should be taken: twice for an edge on a cycle (a loop, taken twice), else once. */
  wanted(edge: GraphEdge): number;
  /** How many times the edge was taken: in finished runs, plus the run going on (see {@link noteTaken}). */
  taken(edge: GraphEdge): number;
  /** Whether the edge is taken fewer times than wanted and was not set aside ({@link exclude}). */
  isWanted(edge: GraphEdge): boolean;
  /** Counts a path a node of the run going on is about to take (a route finder calls it); `graph` must be this one. */
  noteTaken(graph: Graph, path: readonly GraphEdge[]): void;
  /**
   * Ends a run: the edges it took, by index in `graph.edges` and once per time taken (read from its events), replace
   * what {@link noteTaken} counted during it.
   */
  finishRun(takenEdgeIndexes: Iterable<number>): void;
  /** Sets an edge aside: no route aims for it any more (it cannot be taken, or runs reached it in vain). */
  exclude(edge: GraphEdge): void;
  /** Whether {@link exclude} set the edge aside. */
  isExcluded(edge: GraphEdge): boolean;
  /** Edges from each node to the nearest source of a wanted edge; nodes that reach none are absent. */
  distancesToWanted(): ReadonlyMap<string, number>;
}

/**
 * Creates the coverage of `graph`'s edges for a series of simulated runs (`createRouteFinder({ coverage })`). An
 * edge is on a cycle when its target leads back to its source (a loop, a self-loop); such edges are wanted twice, so
 * a loop is run again after it was entered once.
 *
 * @example
 * const coverage = createRouteCoverage(graph);
 * const routes = createRouteFinder({ coverage });
 * // run the pipeline with routes, then: coverage.finishRun(edgeIndexesOf(events));
 */
export function createRouteCoverage(graph: Graph): RouteCoverage {
  const onCycle = edgesOnCycles(graph);
  const committed = new Map<number, number>();
  const pending = new Map<number, number>();
  const excluded = new Set<number>();
  const add = (counts: Map<number, number>, index: number) => counts.set(index, (counts.get(index) ?? 0) + 1);
  const coverage: RouteCoverage = {
    graph,
    wanted: (edge) => (onCycle.has(edge.index) ? 2 : 1),
    taken: (edge) => (committed.get(edge.index) ?? 0) + (pending.get(edge.index) ?? 0),
    isWanted: (edge) => !excluded.has(edge.index) && coverage.taken(edge) < coverage.wanted(edge),
    noteTaken(of, path) {
      if (of !== graph) return;
      for (const edge of path) add(pending, edge.index);
    },
    finishRun(takenEdgeIndexes) {
      pending.clear();
      for (const index of takenEdgeIndexes) add(committed, index);
    },
    exclude: (edge) => {
      excluded.add(edge.index);
    },
    isExcluded: (edge) => excluded.has(edge.index),
    distancesToWanted: () =>
      distancesTo(
        graph,
        graph.edges.filter((edge) => coverage.isWanted(edge)).map((edge) => edge.from),
      ),
  };
  return coverage;
}

/** Indexes of the edges whose two ends are in one strongly connected component (Tarjan's algorithm, iterative). */
function edgesOnCycles(graph: Graph): Set<number> {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const component = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let counter = 0;
  let components = 0;
  for (const root of graph.nodes.keys()) {
    if (index.has(root)) continue;
    const frames: { id: string; edge: number }[] = [{ id: root, edge: 0 }];
    index.set(root, counter);
    lowLink.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames.at(-1)!;
      const edges = graph.outgoing(frame.id);
      if (frame.edge < edges.length) {
        const next = edges[frame.edge++]!.to;
        if (!graph.nodes.has(next)) continue;
        if (!index.has(next)) {
          index.set(next, counter);
          lowLink.set(next, counter++);
          stack.push(next);
          onStack.add(next);
          frames.push({ id: next, edge: 0 });
        } else if (onStack.has(next)) {
          lowLink.set(frame.id, Math.min(lowLink.get(frame.id)!, index.get(next)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames.at(-1);
      if (parent !== undefined)
        lowLink.set(parent.id, Math.min(lowLink.get(parent.id)!, lowLink.get(frame.id)!));
      if (lowLink.get(frame.id) === index.get(frame.id)) {
        for (;;) {
          const member = stack.pop()!;
          onStack.delete(member);
          component.set(member, components);
          if (member === frame.id) break;
        }
        components++;
      }
    }
  }
  const cyclic = new Set<number>();
  for (const edge of graph.edges) {
    const from = component.get(edge.from);
    if (from !== undefined && from === component.get(edge.to)) cyclic.add(edge.index);
  }
  return cyclic;
}
