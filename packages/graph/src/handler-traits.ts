/**
 * What a handler type means to the run loop and to lint, declared by the handler rather than guessed from its type
 * string (docs/architecture.md "Handler contract"). The engine's `defineHandler` carries these; lint and the
 * engine read them through {@link handlerTraits}, so neither compares a node's type with a built-in name.
 */
import type { BuiltInHandlerType, Graph, GraphNode } from './graph.js';

/** The capabilities a handler declares (all optional: a plain handler has none). */
export interface HandlerTraits {
  /**
   * Every status or custom outcome word the handler can return: `outcome_coverage` warns about a condition testing
   * another one. Undeclared: any outcome, custom words included.
   */
  readonly outcomes?: readonly string[];
  /** `start`: the run begins here and the node's handler is a no-op (spec §4.3); `exit`: the run ends here (§4.4). */
  readonly role?: 'start' | 'exit';
  /** Each outgoing edge is a branch the handler walks itself; the run continues at the block's join (spec §4.8). */
  readonly fansOut?: boolean;
  /** Closes the parallel block that fanned out before it (spec §4.9). */
  readonly joinsBranches?: boolean;
  /** Asks a person: its `timeout` is the question's, and its outgoing edges are the choices (spec §4.6). */
  readonly asksHuman?: boolean;
  /** Only routes: the node leaves `last_stage` alone (spec §4.7). */
  readonly routesOnly?: boolean;
  /** Calls the LLM with the node's prompt: it reads `prompt` and spends the run's budget (spec §4.5). */
  readonly callsModel?: boolean;
  /** Supervises a child pipeline named by `stack.child_dotfile` (spec §4.11). */
  readonly supervisesChild?: boolean;
  /** Runs the node's `tool_command` (spec §4.10): a node without one always fails. */
  readonly runsCommand?: boolean;
  /** Runs the pipeline its `graph_ref` names, inline, with its `var.*` attributes as variables (spec §9.4). */
  readonly runsSubgraph?: boolean;
  /**
   * The context keys it sets under a namespace only it writes (`tool.` → `output`, `exit_code`, ...): lint
   * `context_key_unset` warns about a condition reading another key there, or one no node of the graph sets.
   */
  readonly contextKeys?: { readonly prefix: string; readonly keys: readonly string[] };
}

/**
 * The traits of the spec's built-in handler types (spec §2.8, §4.3–§4.11, §9.4), the handlers package's own
 * declarations. They apply to a node whose handler type no registered handler declares, so a graph validated or run
 * without a registry still gets the spec's meaning of each shape.
 */
export const SPEC_HANDLER_TRAITS: Readonly<Record<string, HandlerTraits>> = {
  start: { role: 'start', outcomes: ['success'] },
  exit: { role: 'exit', outcomes: ['success'] },
  // Any outcome: the backend's, or a custom word the prompt asks for.
  codergen: { callsModel: true },
  'wait.human': { asksHuman: true, outcomes: ['success', 'fail', 'retry'] },
  // Undeclared outcomes: many pipelines route a diamond on the outcome it passes through.
  conditional: { routesOnly: true },
  parallel: { fansOut: true, outcomes: ['success', 'partial_success', 'fail'] },
  'parallel.fan_in': { joinsBranches: true, outcomes: ['success', 'fail'] },
  tool: {
    runsCommand: true,
    contextKeys: { prefix: 'tool.', keys: ['output', 'exit_code', 'stderr', 'last_line'] },
  },
  'stack.manager_loop': {
    supervisesChild: true,
    outcomes: ['success', 'fail'],
    contextKeys: {
      prefix: 'stack.child.',
      keys: [
        'status',
        'current_node',
        'completed_nodes',
        'outcome',
        'last_status',
        'failure_reason',
        'run_id',
        'logs_root',
        'cycles',
      ],
    },
  },
  subgraph: { runsSubgraph: true },
  // Its body (the nodes between it and its fan-in) runs once per item, as branches the handler walks itself.
  foreach: { fansOut: true, outcomes: ['success', 'partial_success', 'fail'] },
} satisfies Record<BuiltInHandlerType, HandlerTraits>;

const NO_TRAITS: HandlerTraits = {};

/**
 * The traits of a node's handler: what the handler declared for the node's handler type (`declared`, e.g.
 * `HandlerRegistry.lintInfo()`), else the spec's traits of that type ({@link SPEC_HANDLER_TRAITS}), else none. Pure.
 */
export function handlerTraits(
  graph: Graph,
  node: GraphNode,
  declared?: ReadonlyMap<string, HandlerTraits>,
): HandlerTraits {
  return traitsOfType(graph.handlerType(node), declared);
}

/** A capability a handler can declare: one of the flags of {@link HandlerTraits}, or a `role`. */
export type HandlerCapability =
  | 'role:start'
  | 'role:exit'
  | 'fansOut'
  | 'joinsBranches'
  | 'asksHuman'
  | 'routesOnly'
  | 'callsModel'
  | 'supervisesChild'
  | 'runsCommand'
  | 'runsSubgraph';

/** The boolean capability flags of {@link HandlerTraits}, in declaration order (the engine's `defineHandler` copies these). */
export const HANDLER_CAPABILITY_FLAGS = [
  'fansOut',
  'joinsBranches',
  'asksHuman',
  'routesOnly',
  'callsModel',
  'supervisesChild',
  'runsCommand',
  'runsSubgraph',
] as const satisfies readonly HandlerCapability[];

/**
 * The capabilities `traits` declare: each flag set to `true`, and `role:start`/`role:exit` for a role. Lint rules
 * compare these instead of handler type names (`type_known`, `inert_attribute`). Pure.
 */
export function handlerCapabilities(traits: HandlerTraits): HandlerCapability[] {
  const capabilities: HandlerCapability[] = HANDLER_CAPABILITY_FLAGS.filter((flag) => traits[flag] === true);
  if (traits.role !== undefined) capabilities.push(`role:${traits.role}`);
  return capabilities;
}

/**
 * The traits of handler type `type`: what a registered handler declared for it (`declared`), else the spec's
 * ({@link SPEC_HANDLER_TRAITS}), else none. Pure.
 */
export function traitsOfType(type: string, declared?: ReadonlyMap<string, HandlerTraits>): HandlerTraits {
  return (
    declared?.get(type) ?? (Object.hasOwn(SPEC_HANDLER_TRAITS, type) ? SPEC_HANDLER_TRAITS[type]! : NO_TRAITS)
  );
}
