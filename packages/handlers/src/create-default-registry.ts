/**
 * The built-in handler set (spec §2.8, §4) and a registry with all of it.
 */
import type { CodergenBackend, DeclaredHandler, Interviewer } from '@attractor/engine';
import { HandlerRegistry } from '@attractor/engine';
import type { BuiltInHandlerType } from '@attractor/graph';
import { createCodergenHandler } from './codergen-handler.js';
import { createConditionalHandler } from './conditional-handler.js';
import { createExitHandler } from './exit-handler.js';
import { createFanInHandler } from './fan-in-handler.js';
import { createForeachHandler } from './foreach-handler.js';
import { createManagerLoopHandler } from './manager-loop-handler.js';
import { createParallelHandler } from './parallel-handler.js';
import { createRouteFinder, type RouteFinder } from './route-finder.js';
import type { SimulationScript } from './simulation-script.js';
import { createStartHandler } from './start-handler.js';
import { createSubgraphHandler } from './subgraph-handler.js';
import { createToolHandler, type ToolHandlerOptions } from './tool-handler.js';
import { createWaitHumanHandler } from './wait-human-handler.js';

/** Options of {@link createHandlers} and {@link createDefaultRegistry}. */
export interface DefaultHandlersOptions {
  /**
   * The LLM backend of the codergen and fan-in handlers. Default: the run's `backend` (`runtime.backend`); the
   * usual way is to pass it to `runPipeline`, so manager-loop children get it too.
   */
  readonly backend?: CodergenBackend;
  /**
   * Asks human gates instead of the run's interviewer. Default: `runtime.interviewer`, the engine's wrapper that
   * emits `interview.*` events and applies timeouts; pass the interviewer to `runPipeline` instead when you can.
   */
  readonly interviewer?: Interviewer;
  /** Tool nodes record their command (`command.sh`) instead of running it. Default: false. */
  readonly dryRun?: boolean;
  /**
   * The simulation script (the CLI's `--simulate-script`): in a dry run, tool nodes follow their entries (outcome
   * and simulated stdout); pass the same script to `createSimulationBackend` for the LLM stages. Default: `{}`.
   */
  readonly script?: SimulationScript;
  /**
   * In a dry run with a script: calls each tool node already made in the run being resumed or forked
   * (`readSimulationCalls`), so each node takes its next step; pass the same map to `createSimulationBackend`.
   * Default: none.
   */
  readonly calls?: ReadonlyMap<string, number>;
  /**
   * A simulated run's route finder (`createRouteFinder`; pass the same one to `createSimulationBackend`): conditional
   * nodes whose edges test values nothing set, and in a dry run unscripted tool nodes, aim for the route it picks
   * (see `createConditionalHandler` and the tool handler's dry run). Default: none (conditional nodes pass through,
   * dry-run tool nodes print their plain simulated output), except in a dry run, which makes one of seed 0.
   */
  readonly routes?: RouteFinder;
  /** Further options of the tool handler (shell, kill grace, output limit). */
  readonly tool?: Omit<ToolHandlerOptions, 'dryRun' | 'script' | 'calls' | 'routes'>;
}

/**
 * Every built-in handler by its type string (spec §2.8): `start`, `exit`, `codergen`, `wait.human`, `conditional`,
 * `parallel`, `parallel.fan_in`, `tool`, `stack.manager_loop`, `subgraph` (spec §9.4, `type="subgraph"`) and
 * `foreach` (README "Typed data", `type="foreach"`).
 */
export function createHandlers(
  options: DefaultHandlersOptions = {},
): Record<BuiltInHandlerType, DeclaredHandler> {
  const backend = options.backend === undefined ? {} : { backend: options.backend };
  const routes = options.routes ?? (options.dryRun === true ? createRouteFinder() : undefined);
  return {
    start: createStartHandler(),
    exit: createExitHandler(),
    codergen: createCodergenHandler(backend),
    'wait.human': createWaitHumanHandler(
      options.interviewer === undefined ? {} : { interviewer: options.interviewer },
    ),
    conditional: createConditionalHandler(routes === undefined ? {} : { routes }),
    parallel: createParallelHandler(),
    'parallel.fan_in': createFanInHandler(backend),
    tool: createToolHandler({
      ...options.tool,
      ...(options.dryRun === undefined ? {} : { dryRun: options.dryRun }),
      ...(options.script === undefined ? {} : { script: options.script }),
      ...(options.calls === undefined ? {} : { calls: options.calls }),
      ...(routes === undefined ? {} : { routes }),
    }),
    'stack.manager_loop': createManagerLoopHandler(),
    subgraph: createSubgraphHandler(),
    foreach: createForeachHandler(),
  } satisfies Record<BuiltInHandlerType, DeclaredHandler>;
}

/**
 * A `HandlerRegistry` with every built-in handler registered under its type and the codergen handler as the
 * default (spec §4.2 step 3). Register custom handlers on it with `registry.register(type, handler)`.
 *
 * @example
 * const { graph } = prepareGraph(source, { filename: 'pipeline.dot' });
 * const registry = createDefaultRegistry();
 * const result = await runPipeline({
 *   graph: graph!, registry, logsRoot: '.attractor/runs/demo',
 *   backend: createSimulationBackend(), interviewer: createAutoApproveInterviewer(),
 * });
 */
export function createDefaultRegistry(options: DefaultHandlersOptions = {}): HandlerRegistry {
  const handlers = createHandlers(options);
  return new HandlerRegistry({ handlers, defaultHandler: handlers.codergen });
}
