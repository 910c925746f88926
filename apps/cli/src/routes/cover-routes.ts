/**
 * Route coverage (`attractor test --routes`): simulated runs of a pipeline, steered towards the edges not taken yet,
 * until every edge is taken (loops twice) or no run gets further.
 */
import { join } from 'node:path';
import {
  type DeclaredHandler,
  type Handler,
  type JsonValue,
  type PipelineEvent,
  type RunStatus,
  runPipeline,
} from '@attractor/engine';
import type { Graph, GraphEdge } from '@attractor/graph';
import {
  createDefaultRegistry,
  createHandlers,
  createRouteCoverage,
  createRouteFinder,
  createRouteInterviewer,
  createSimulationBackend,
  type RouteFinder,
} from '@attractor/handlers';
import { whyEdgeCannotBeTaken } from './edge-takeability.js';

/** One simulated run of {@link coverRoutes}. */
export interface CoverageRun {
  readonly status: RunStatus;
  /** The top-level stages in the order they completed. */
  readonly route: readonly string[];
  readonly failureReason?: string;
  /** Edges this run took that no run before it had taken (as often as wanted). */
  readonly newEdges: number;
}

/** What became of one edge. */
export interface EdgeCoverage {
  readonly from: string;
  readonly to: string;
  readonly condition: string;
  readonly label: string;
  /** Line of the edge in the DOT file, when known. */
  readonly line?: number;
  /** Runs took it this many times in all. */
  readonly taken: number;
  /** How many times it should be taken: 2 for an edge on a loop, else 1. */
  readonly wanted: number;
  /**
   * `taken` (as often as wanted), `loop-once` (an edge on a loop taken once), `never-taken` (no run took it; `reason`
   * says whether its node was reached), `cannot-be-taken` (no simulated run can take it; `reason` says why).
   */
  readonly state: 'taken' | 'loop-once' | 'never-taken' | 'cannot-be-taken';
  readonly reason?: string;
}

/** A human gate and whether a run reached it. */
export interface GateCoverage {
  readonly node: string;
  readonly line?: number;
  readonly reached: boolean;
}

/** The result of {@link coverRoutes}. */
export interface RouteCoverageReport {
  readonly seed: number;
  /** Every edge taken as often as wanted and every gate reached. */
  readonly complete: boolean;
  readonly runs: readonly CoverageRun[];
  readonly edges: readonly EdgeCoverage[];
  readonly gates: readonly GateCoverage[];
}

/** Options of {@link coverRoutes}. */
export interface CoverRoutesOptions {
  readonly graph: Graph;
  /** The working directory of the runs (nothing runs there: tool commands are recorded, not run). */
  readonly workdir: string;
  /** Where the runs' directories go (`run-1`, `run-2`, ...). */
  readonly logsDir: string;
  /** Breaks ties between equally good routes. */
  readonly seed: number;
  /** The most runs. */
  readonly maxRuns: number;
  /** Plug-in handler types of the config: simulated like LLM stages (their code is not run). */
  readonly pluginTypes: Iterable<string>;
  /** Initial context values of every run (`--set`). */
  readonly context?: Readonly<Record<string, JsonValue>>;
  /** The graph's inputs of every run (README "Typed data"), already checked against its `inputs` declaration. */
  readonly inputs?: Readonly<Record<string, JsonValue>>;
  /** Called after each run, for progress. */
  readonly onRun?: (run: CoverageRun, index: number) => void;
}

/**
 * Runs `graph` in simulation (LLM stages, tool nodes and plug-in handlers simulated, human gates answered by the
 * route) as often as needed to take every edge (edges on loops twice): each run is steered towards the edges not
 * taken often enough (`createRouteFinder` with coverage), and the edges a run takes are read from its events as it
 * goes (`RouteCoverage.observe`). Stops
 * when every edge that can be taken was taken, after `maxRuns` runs, when no edge still wanted can be reached, or
 * after a run that took nothing new: the edges whose node it reached are then set aside (the next runs go elsewhere),
 * and when there are none, the runs stop.
 */
export async function coverRoutes(options: CoverRoutesOptions): Promise<RouteCoverageReport> {
  const { graph } = options;
  const coverage = createRouteCoverage(graph);
  const cannot = new Map<number, string>();
  for (const edge of graph.edges) {
    const reason = whyEdgeCannotBeTaken(graph, edge);
    if (reason === undefined) continue;
    cannot.set(edge.index, reason);
    coverage.exclude(edge);
  }
  const runs: CoverageRun[] = [];
  const reachedNodes = new Set<string>();
  const startId = graph.startNode?.id;
  for (let index = 1; index <= options.maxRuns; index++) {
    const wanted = graph.edges.filter((edge) => coverage.isWanted(edge));
    if (wanted.length === 0) break;
    if (startId !== undefined && runs.length > 0 && !coverage.distancesToWanted().has(startId)) break;
    const routes = createRouteFinder({ seed: options.seed, coverage });
    const events: PipelineEvent[] = [];
    const result = await runPipeline({
      graph,
      registry: simulatedRegistry(routes, options.pluginTypes),
      backend: createSimulationBackend({ routes }),
      interviewer: createRouteInterviewer({ graph, routes }),
      logsRoot: join(options.logsDir, `run-${index}`),
      workdir: options.workdir,
      ...(options.context === undefined ? {} : { context: options.context }),
      ...(options.inputs === undefined ? {} : { inputs: options.inputs }),
      onEvent: (event) => {
        events.push(event);
        coverage.observe(event);
      },
    });
    coverage.finishRun();
    const visited = new Set<string>();
    for (const event of events) {
      if (event.type === 'stage.started' && graph.nodes.has(event.nodeId)) visited.add(event.nodeId);
    }
    for (const id of visited) reachedNodes.add(id);
    const after = graph.edges.filter((edge) => coverage.isWanted(edge));
    const run: CoverageRun = {
      status: result.status,
      route: events.flatMap((event) =>
        event.type === 'stage.completed' && event.branchPath === undefined ? [event.nodeId] : [],
      ),
      ...(result.failureReason === undefined ? {} : { failureReason: result.failureReason }),
      newEdges: wanted.length - after.length,
    };
    runs.push(run);
    options.onRun?.(run, index);
    if (run.newEdges > 0) continue;
    // Reached but not taken: aiming for it again would repeat this run. Nothing to set aside: the next run would too.
    const reachedInVain = after.filter((edge) => visited.has(edge.from));
    if (reachedInVain.length === 0) break;
    for (const edge of reachedInVain) coverage.exclude(edge);
  }
  const edges = graph.edges.map((edge) => edgeCoverage(edge, coverage, cannot, reachedNodes));
  const gates = [...graph.nodes.values()]
    .filter((node) => graph.handlerType(node) === 'wait.human')
    .map((node) => ({
      node: node.id,
      ...(node.span === undefined ? {} : { line: node.span.start.line }),
      reached: reachedNodes.has(node.id),
    }));
  return {
    seed: options.seed,
    complete: edges.every((edge) => edge.state === 'taken') && gates.every((gate) => gate.reached),
    runs,
    edges,
    gates,
  };
}

function edgeCoverage(
  edge: GraphEdge,
  coverage: ReturnType<typeof createRouteCoverage>,
  cannot: ReadonlyMap<number, string>,
  reachedNodes: ReadonlySet<string>,
): EdgeCoverage {
  const taken = coverage.taken(edge);
  const wanted = coverage.wanted(edge);
  const base = {
    from: edge.from,
    to: edge.to,
    condition: edge.condition,
    label: edge.label,
    ...(edge.span === undefined ? {} : { line: edge.span.start.line }),
    taken,
    wanted,
  };
  if (taken >= wanted) return { ...base, state: 'taken' };
  if (taken > 0)
    return { ...base, state: 'loop-once', reason: 'an edge on a loop, taken once: wanted twice' };
  const impossible = cannot.get(edge.index);
  if (impossible !== undefined) return { ...base, state: 'cannot-be-taken', reason: impossible };
  return {
    ...base,
    state: 'never-taken',
    reason: reachedNodes.has(edge.from)
      ? `"${edge.from}" was reached, but no run took this edge`
      : `no run reached "${edge.from}"`,
  };
}

/**
 * The built-in handlers of a dry run steered by `routes`, with each plug-in handler type replaced by a simulated
 * stage (it returns what its route needs; its code is not run).
 */
function simulatedRegistry(routes: RouteFinder, pluginTypes: Iterable<string>) {
  const registry = createDefaultRegistry({ dryRun: true, routes });
  for (const type of pluginTypes) registry.register(type, simulatedStage(routes));
  const handlers = createHandlers({ dryRun: true, routes });
  for (const type of ['subgraph', 'stack.manager_loop', 'parallel.fan_in'] as const) {
    registry.register(type, reroutedOutcome(handlers[type], routes));
  }
  return registry;
}

/**
 * A handler whose outcome is its child pipeline's or its branches' (a sub-pipeline, a manager loop, a fan-in), run for
 * real (in simulation), with its status replaced when the route wants another one its edges test (`checks -> fix
 * [condition="outcome=fail"]` after checks that passed): the runs then take those edges too.
 */
function reroutedOutcome(handler: DeclaredHandler, routes: RouteFinder): Handler {
  return {
    ...handler,
    async execute(input) {
      const outcome = await handler.execute(input);
      const { node, graph, context, runtime } = input;
      const aim = routes.aim({
        graph,
        node,
        context,
        visit: runtime.visit,
        statuses: [outcome.status],
        setsContext: false,
        routingHints: false,
        baseUpdates: outcome.contextUpdates ?? {},
      });
      if (aim === undefined || aim.status === outcome.status) return outcome;
      runtime.emit({ type: 'stage.log', level: 'info', message: `[Simulated] ${aim.description}` });
      return {
        ...outcome,
        status: aim.status,
        notes:
          `${outcome.notes ?? ''} [Simulated] outcome ${aim.status} instead of ${outcome.status}: ${aim.description}`.trim(),
        ...(aim.status === 'fail'
          ? { failureReason: `simulated fail: the route ${aim.description}`, retryable: false }
          : {}),
      };
    },
  };
}

function simulatedStage(routes: RouteFinder): Handler {
  return {
    async execute({ node, graph, context, runtime }) {
      const aim = routes.aim({ graph, node, context, visit: runtime.visit });
      if (aim === undefined) return { status: 'success', notes: `[Simulated] plug-in stage ${node.id}` };
      runtime.emit({ type: 'stage.log', level: 'info', message: `[Simulated] ${aim.description}` });
      return {
        status: aim.status,
        ...(aim.preferredLabel === undefined ? {} : { preferredLabel: aim.preferredLabel }),
        ...(aim.suggestedNextIds === undefined ? {} : { suggestedNextIds: aim.suggestedNextIds }),
        contextUpdates: aim.contextUpdates,
        notes: `[Simulated] plug-in stage ${node.id} ${aim.description}`,
        ...(aim.status === 'fail'
          ? { failureReason: `simulated fail: the route ${aim.description}`, retryable: false }
          : {}),
      };
    },
  };
}
