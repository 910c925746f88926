/**
 * Which edges of a pipeline simulated runs have taken, and how often each should be: the state `attractor test
 * --routes` keeps across its runs, and that a {@link RouteFinder} reads to steer the next run towards the rest.
 */
import type { PipelineEvent } from '@attractor/engine';
import { findJoinNode, type Graph, type GraphEdge } from '@attractor/graph';
import { distancesTo } from './route-finder.js';

/** Edges taken by simulated runs of one graph (see {@link createRouteCoverage}). */
export interface RouteCoverage {
  /** The graph whose edges are counted (a route finder steers only its walks). */
  readonly graph: Graph;
  /** How many times the edge should be taken: twice for an edge on a cycle (a loop, taken twice), else once. */
  wanted(edge: GraphEdge): number;
  /** How many times the edge was taken: in finished runs, plus the run going on (see {@link observe}). */
  taken(edge: GraphEdge): number;
  /** Whether the edge is taken fewer times than wanted and was not set aside ({@link exclude}). */
  isWanted(edge: GraphEdge): boolean;
  /**
   * Counts what an event of the run going on says was taken (pass every event of the run, in order, to `onEvent`):
   * the edge a stage was reached along (`stage.started`'s `edgeIndex`, first attempts), a parallel branch's fan-out
   * edge (`parallel.branch.started`) or a foreach's body edge (`foreach.item.started`), and the edge from a branch's
   * or item's last stage to its join (when the branch or item completes: its walk stops before the join), and a `loop_restart` edge (`pipeline.restarted`). Counted at once, so the
   * route finder sees a loop taken during the run.
   */
  observe(event: PipelineEvent): void;
  /** Ends a run: what {@link observe} counted becomes part of the finished runs. Returns the edges it took, by index. */
  finishRun(): number[];
  /** Sets an edge aside: no route aims for it any more (it cannot be taken, or runs reached it in vain). */
  exclude(edge: GraphEdge): void;
  /** Whether {@link exclude} set the edge aside. */
  isExcluded(edge: GraphEdge): boolean;
  /**
   * Edges from each node to the nearest source of a wanted edge, over edges not set aside; nodes that reach none are
   * absent.
   */
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
 * await runPipeline({ graph, registry, backend, logsRoot, onEvent: (event) => coverage.observe(event) });
 * coverage.finishRun();
 */
export function createRouteCoverage(graph: Graph): RouteCoverage {
  const onCycle = edgesOnCycles(graph);
  const committed = new Map<number, number>();
  const excluded = new Set<number>();
  let run: number[] = [];
  let pending = new Map<number, number>();
  /** The last stage of each parallel branch of the run going on, by branch path (`''`: the top level). */
  let lastInBranch = new Map<string, string>();
  const take = (edge: GraphEdge | undefined) => {
    if (edge === undefined) return;
    run.push(edge.index);
    pending.set(edge.index, (pending.get(edge.index) ?? 0) + 1);
  };
  /** Takes the edge from the last stage of the branch at `branch` (a branch path) to the join of `fanOutId`. */
  const takeToJoin = (branch: string, fanOutId: string) => {
    const last = lastInBranch.get(branch);
    const join = findJoinNode(graph, fanOutId);
    if (last !== undefined) take(graph.outgoing(last).find((edge) => edge.to === join));
  };
  const coverage: RouteCoverage = {
    graph,
    wanted: (edge) => (onCycle.has(edge.index) ? 2 : 1),
    taken: (edge) => (committed.get(edge.index) ?? 0) + (pending.get(edge.index) ?? 0),
    isWanted: (edge) => !excluded.has(edge.index) && coverage.taken(edge) < coverage.wanted(edge),
    observe(event) {
      const path = (event.branchPath ?? []).join('/');
      if (event.type === 'stage.started') {
        if (!graph.nodes.has(event.nodeId)) return;
        if (event.attempt === 1 && event.edgeIndex !== undefined) take(graph.edges[event.edgeIndex]);
        lastInBranch.set(path, event.nodeId);
      } else if (event.type === 'pipeline.restarted') {
        // The continuation starts at the target afresh: the loop_restart edge is the last stage's.
        const last = lastInBranch.get('');
        if (last !== undefined)
          take(graph.outgoing(last).find((edge) => edge.loopRestart && edge.to === event.targetNodeId));
      } else if (event.type === 'parallel.branch.started') {
        take(graph.outgoing(event.nodeId)[event.index]);
      } else if (event.type === 'foreach.item.started') {
        // A foreach's body edge, once per item.
        take(graph.outgoing(event.nodeId)[0]);
      } else if (event.type === 'parallel.branch.completed' && event.status !== 'fail') {
        takeToJoin(`${path === '' ? '' : `${path}/`}${event.branch}`, event.nodeId);
      } else if (event.type === 'foreach.item.completed' && event.success && event.kept !== true) {
        takeToJoin(`${path === '' ? '' : `${path}/`}items/${event.index}`, event.nodeId);
      }
    },
    finishRun() {
      for (const [index, count] of pending) committed.set(index, (committed.get(index) ?? 0) + count);
      const taken = run;
      run = [];
      pending = new Map();
      lastInBranch = new Map();
      return taken;
    },
    exclude: (edge) => {
      excluded.add(edge.index);
    },
    isExcluded: (edge) => excluded.has(edge.index),
    distancesToWanted: () =>
      distancesTo(
        graph,
        graph.edges.filter((edge) => coverage.isWanted(edge)).map((edge) => edge.from),
        (edge) => !edge.loopRestart && !excluded.has(edge.index),
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
