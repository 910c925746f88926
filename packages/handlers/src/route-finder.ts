/**
 * Route finding for simulated runs: which edge a simulated stage aims for, so that a pipeline whose edges test what a
 * stage said (`context.last_response contains PLAN_READY`, `preferred_label=scored`, `outcome=success` of a check)
 * reaches its exit offline, and, with a {@link RouteCoverage}, takes every edge across runs (`attractor test --routes`).
 */
import {
  aimAtEdge,
  type EdgeAim,
  type EdgeConditionContext,
  isSuccessStatus,
  type JsonValue,
  type Outcome,
  type OutcomeStatus,
  selectEdge,
} from '@attractor/engine';
import type { Graph, GraphEdge, GraphNode } from '@attractor/graph';
import type { RouteCoverage } from './route-coverage.js';

/** Conditional nodes looked through after a stage: its values are what their conditions test. */
const MAX_ROUTING_HOPS = 3;

/** Options of {@link createRouteFinder}. */
export interface RouteFinderOptions {
  /**
   * Breaks ties between equally good routes (the CLI's `--seed`): the same seed gives the same routes, whatever the
   * order in which parallel branches ask. Default: 0.
   */
  readonly seed?: number;
  /**
   * Edges taken so far and how often each should be (`attractor test --routes`): routes towards edges not taken often
   * enough come first, then the shortest way to the exit. Only for the graph it was made for; other graphs (child
   * pipelines) take the shortest way. Default: none (always the shortest way to the exit).
   */
  readonly coverage?: RouteCoverage;
}

/** What a simulated node asks {@link RouteFinder.aim}. */
export interface RouteAimRequest {
  readonly graph: Graph;
  readonly node: GraphNode;
  /** The run context before the node's updates. */
  readonly context: EdgeConditionContext;
  /** Which visit of the node this is, from 1 (ties between routes are broken per visit). */
  readonly visit: number;
  /**
   * The statuses the node may end with, most wanted first; the first is its plain answer. Default: `['success']`.
   */
  readonly statuses?: readonly OutcomeStatus[];
  /** Also the statuses its edges' conditions name (`outcome=fail`, `outcome=fixed`), as an LLM stage may. Default: true. */
  readonly statusesOfConditions?: boolean;
  /** Whether the outcome may carry a preferred label and suggested next ids. Default: true. */
  readonly routingHints?: boolean;
  /**
   * Whether the node may set the context values its edges (and the conditional nodes after it) test: `true`, `false`,
   * or `'when-stuck'`: only when its plain answer takes no edge at all (a conditional node in a run whose tools are
   * real: their output decides, unless nothing would). Default: true.
   */
  readonly setsContext?: boolean | 'when-stuck';
  /** The context updates of the plain answer (the simulated response as `last_response`). Default: none. */
  readonly baseUpdates?: Readonly<Record<string, JsonValue>>;
  /** What the node's handler puts in the context for an aim (see `aimAtEdge`'s `realize`). Default: the aim's updates. */
  readonly realize?: (aim: {
    readonly status: OutcomeStatus;
    readonly contextUpdates: Readonly<Record<string, JsonValue>>;
  }) => Readonly<Record<string, JsonValue>>;
}

/** The route a simulated node aims for and what it returns to take it. */
export interface RouteAim extends EdgeAim {
  /** The edges it takes: from the node, then through the conditional nodes after it. */
  readonly path: readonly GraphEdge[];
  /** For the events: `aims for review -> ship [context.last_response contains APPROVED]: outcome success, sets last_response`. */
  readonly description: string;
}

/**
 * Chooses routes for simulated nodes. It remembers the routes it chose (a node visited again tries another way): use
 * one per run, shared by the run's backend, handlers and interviewer.
 */
export interface RouteFinder {
  /**
   * The route the node aims for and the outcome that takes it, or `undefined` when its plain answer (first status,
   * base updates, no hints) already takes the best route, or no route can be taken.
   */
  aim(request: RouteAimRequest): RouteAim | undefined;
  /** Of `edges` (a human gate's choices), the one the route takes; `undefined` for none. */
  choose(request: {
    readonly graph: Graph;
    readonly node: GraphNode;
    readonly edges: readonly GraphEdge[];
    readonly visit: number;
  }): GraphEdge | undefined;
}

/**
 * Creates a route finder. A node's best route is the path (its edge, then through up to three conditional nodes) whose
 * end is closest to an exit node, counting edges, `loop_restart` edges last; ties go by a hash of the seed, the node,
 * the visit and the edges. A node visited again takes the route this finder sent it along least often first (a
 * loop is left by another way). A goal gate (spec §3.4) fails only when no route lets it succeed. A node whose plain
 * answer already moves closer to an exit keeps it, so a simulated run routes as before wherever it could. With
 * coverage, a path with an edge taken fewer times than wanted comes first, then the path closest to such an edge,
 * then the one closest to an exit.
 *
 * @example
 * const routes = createRouteFinder({ seed: 7 });
 * const backend = createSimulationBackend({ routes });
 * const registry = createDefaultRegistry({ dryRun: true, routes });
 */
export function createRouteFinder(options: RouteFinderOptions = {}): RouteFinder {
  const seed = options.seed ?? 0;
  const { coverage } = options;
  const covering = (graph: Graph) => coverage !== undefined && coverage.graph === graph;
  /** How often this finder sent each node along each path: a node visited again tries another way first. */
  const chosen = new WeakMap<Graph, Map<string, number>>();
  const pathKey = (path: readonly GraphEdge[]) => path.map((edge) => edge.index).join(',');
  const timesChosen = (graph: Graph, path: readonly GraphEdge[]) =>
    chosen.get(graph)?.get(pathKey(path)) ?? 0;
  const choose = (graph: Graph, path: readonly GraphEdge[]) => {
    let counts = chosen.get(graph);
    if (counts === undefined) {
      counts = new Map();
      chosen.set(graph, counts);
    }
    counts.set(pathKey(path), (counts.get(pathKey(path)) ?? 0) + 1);
  };

  const rank = (graph: Graph, node: GraphNode, visit: number, paths: readonly GraphEdge[][]) => {
    const toExit = distancesToExit(graph);
    const toWanted = covering(graph) ? coverage!.distancesToWanted() : undefined;
    const scored = paths.map((path) => {
      const end = path.at(-1)!.to;
      const restarts = path.some((edge) => edge.loopRestart);
      const wanted =
        toWanted === undefined
          ? 0
          : path.some((edge) => coverage!.isExcluded(edge))
            ? Infinity
            : path.some((edge) => coverage!.isWanted(edge))
              ? 0
              : (toWanted.get(end) ?? Infinity) + 1;
      return {
        path,
        score: [
          wanted,
          timesChosen(graph, path),
          restarts ? Infinity : (toExit.get(end) ?? Infinity),
          tieBreak(seed, node.id, visit, path),
        ],
      };
    });
    scored.sort((left, right) => compareScores(left.score, right.score));
    return scored.map((entry) => entry.path);
  };

  return {
    aim(request) {
      const { graph, node } = request;
      if (graph.outgoing(node.id).length === 0) return undefined;
      const statuses = request.statuses ?? ['success'];
      const natural = naturalPath(request, statuses[0]!);
      const mode = request.setsContext ?? true;
      if (!covering(graph) && natural !== undefined) {
        if (mode === 'when-stuck') return undefined;
        if (progresses(graph, node, natural) && timesChosen(graph, natural) === 0) {
          choose(graph, natural);
          return undefined;
        }
      }
      const ranked = rank(graph, node, request.visit, routesFrom(graph, node));
      // A goal gate that fails keeps the run from its exit (spec §3.4): a route it takes by failing comes last, unless
      // the route is for coverage.
      const passes = node.goalGate && !covering(graph) ? [true, false] : [false];
      for (const succeeding of passes) {
        for (const path of ranked) {
          if (natural !== undefined && samePath(path, natural)) {
            choose(graph, natural);
            return undefined;
          }
          const aim = aimAtEdge({
            graph,
            path,
            context: request.context,
            statuses,
            statusesOfConditions: request.statusesOfConditions ?? true,
            routingHints: request.routingHints ?? true,
            setsContext: mode !== false,
            ...(request.baseUpdates === undefined ? {} : { baseUpdates: request.baseUpdates }),
            ...(request.realize === undefined ? {} : { realize: request.realize }),
          });
          if (aim === undefined || (succeeding && !isSuccessStatus(aim.status))) continue;
          choose(graph, path);
          return { ...aim, path, description: describeAim(aim, path) };
        }
      }
      return undefined;
    },
    choose(request) {
      const best = rank(
        request.graph,
        request.node,
        request.visit,
        request.edges.map((edge) => [edge]),
      )[0];
      if (best !== undefined) choose(request.graph, best);
      return best?.[0];
    },
  };
}

/**
 * The path the node's plain answer takes (its first status, its base updates, no hints), through the conditional nodes
 * after it; `undefined` when it takes no edge.
 */
function naturalPath(request: RouteAimRequest, status: OutcomeStatus): GraphEdge[] | undefined {
  const { graph, node } = request;
  const updates =
    request.realize?.({ status, contextUpdates: request.baseUpdates ?? {} }) ?? request.baseUpdates ?? {};
  const values = new Map<string, unknown>(Object.entries(updates));
  values.set('outcome', status);
  values.set('last_stage', node.id);
  const context: EdgeConditionContext = {
    get: (key) => (values.has(key) ? values.get(key) : request.context.get(key)),
  };
  const path: GraphEdge[] = [];
  let from = node.id;
  let outcome: Outcome = { status };
  for (let hop = 0; hop <= MAX_ROUTING_HOPS; hop++) {
    let edge: GraphEdge | undefined;
    try {
      edge = selectEdge({
        edges: graph.outgoing(from),
        outcome,
        context,
        conditionalOnly: status === 'fail' && hop === 0,
      })?.edge;
    } catch {
      // A condition that does not parse routes nowhere (lint reports it).
      return undefined;
    }
    if (edge === undefined) return path.length === 0 ? undefined : path;
    path.push(edge);
    const next = graph.node(edge.to);
    if (
      next === undefined ||
      graph.handlerType(next) !== 'conditional' ||
      path.some((taken) => taken.from === next.id)
    )
      return path;
    from = next.id;
    outcome = { status: 'success' };
    values.set('outcome', 'success');
  }
  return path;
}

/** Whether a path ends closer to an exit than the node it leaves (or the node reaches no exit at all). */
function progresses(graph: Graph, node: GraphNode, path: readonly GraphEdge[]): boolean {
  if (path.some((edge) => edge.loopRestart)) return false;
  const distances = distancesToExit(graph);
  const here = distances.get(node.id) ?? Infinity;
  const there = distances.get(path.at(-1)!.to) ?? Infinity;
  return here === Infinity || there < here;
}

/** Every path from the node: each edge, and through a conditional node it reaches, each of that node's edges too. */
function routesFrom(graph: Graph, node: GraphNode): GraphEdge[][] {
  const paths: GraphEdge[][] = [];
  const extend = (path: GraphEdge[]) => {
    paths.push(path);
    const last = path.at(-1)!;
    const next = graph.node(last.to);
    if (next === undefined || graph.handlerType(next) !== 'conditional') return;
    if (path.length > MAX_ROUTING_HOPS || path.some((edge) => edge.from === next.id)) return;
    for (const edge of graph.outgoing(next.id)) extend([...path, edge]);
  };
  for (const edge of graph.outgoing(node.id)) extend([edge]);
  // The longer path first for equal ends: the stage then sets what the conditional node tests.
  return paths.reverse();
}

function samePath(left: readonly GraphEdge[], right: readonly GraphEdge[]): boolean {
  return left.length === right.length && left.every((edge, index) => edge.index === right[index]!.index);
}

function compareScores(left: readonly number[], right: readonly number[]): number {
  for (let index = 0; index < left.length; index++) {
    const difference = left[index]! - right[index]!;
    if (difference !== 0 && !Number.isNaN(difference)) return difference;
  }
  return 0;
}

/** A number from the seed, the node, the visit and the path (FNV-1a): the same inputs give the same order. */
function tieBreak(seed: number, nodeId: string, visit: number, path: readonly GraphEdge[]): number {
  let hash = 0x811c9dc5 ^ seed;
  const text = `${nodeId}\u0000${visit}\u0000${path.map((edge) => edge.index).join(',')}`;
  for (let index = 0; index < text.length; index++)
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return (hash ^ (hash >>> 12)) >>> 0;
}

const exitDistances = new WeakMap<Graph, ReadonlyMap<string, number>>();

/**
 * Edges from each node to the nearest exit node (spec §4.4), ignoring conditions and `loop_restart` edges (which start
 * the run over); nodes that reach none are absent.
 */
export function distancesToExit(graph: Graph): ReadonlyMap<string, number> {
  let distances = exitDistances.get(graph);
  if (distances === undefined) {
    distances = distancesTo(
      graph,
      graph.exitNodes.map((node) => node.id),
    );
    exitDistances.set(graph, distances);
  }
  return distances;
}

/**
 * Edges from each node to the nearest of `targets` (breadth first over the reversed graph), over the edges `usable`
 * accepts (default: all but `loop_restart` edges, which start the run over).
 */
export function distancesTo(
  graph: Graph,
  targets: Iterable<string>,
  usable: (edge: GraphEdge) => boolean = (edge) => !edge.loopRestart,
): Map<string, number> {
  const distances = new Map<string, number>();
  const queue: string[] = [];
  for (const target of targets) {
    if (distances.has(target)) continue;
    distances.set(target, 0);
    queue.push(target);
  }
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head]!;
    const distance = distances.get(id)!;
    for (const edge of graph.incoming(id)) {
      if (!usable(edge) || distances.has(edge.from)) continue;
      distances.set(edge.from, distance + 1);
      queue.push(edge.from);
    }
  }
  return distances;
}

/** `aims for review -> ship [context.last_response contains APPROVED]: outcome success, sets last_response`. */
function describeAim(aim: EdgeAim, path: readonly GraphEdge[]): string {
  const edges = path
    .map((edge) => `${edge.from} -> ${edge.to}${edge.condition.trim() === '' ? '' : ` [${edge.condition}]`}`)
    .join(', then ');
  const label = aim.preferredLabel === undefined ? '' : `, preferred label "${aim.preferredLabel}"`;
  const keys = aim.chosenKeys.length === 0 ? '' : `, sets ${aim.chosenKeys.join(', ')}`;
  return `aims for ${edges}: outcome ${aim.status}${label}${keys}`;
}
