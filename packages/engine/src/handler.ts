/**
 * The node handler contract of spec §4.1 / docs/architecture.md "Handler contract".
 */
import type { Graph, GraphNode } from '@attractor/graph';
import type { Context } from './context.js';
import type { HandlerRuntime } from './handler-runtime.js';
import type { Outcome } from './outcome.js';

/** The one argument of {@link Handler.execute} (spec §4.1's `execute(node, context, graph, logs_root)` plus the runtime). */
export interface HandlerExecuteInput {
  /** The node being executed. */
  readonly node: GraphNode;
  /** The run context (spec §5.1): read it freely, but prefer returning `contextUpdates` to writing it. */
  readonly context: Context;
  /** The whole graph. */
  readonly graph: Graph;
  /** The run directory; the stage's own directory is `runtime.stageDir` (already created). */
  readonly logsRoot: string;
  /** Signal, events, interviewer, backend, stage directory, `runBranch` (see {@link HandlerRuntime}). */
  readonly runtime: HandlerRuntime;
}

/**
 * Executes one node (spec §4.1). Declare one with `defineHandler` (its type, attributes, outcomes and capabilities
 * then reach lint and the engine), or register a plain object with `HandlerRegistry.register(type, handler)`.
 *
 * - Honour `runtime.abortSignal` (node timeout, run cancellation).
 * - Return FAIL outcomes for expected failures. A thrown error becomes a FAIL outcome with the error's message
 *   (its `retryable` field, when present, is respected); the engine never crashes because a handler threw.
 * - Handlers must be stateless or guard shared state: parallel branches call them concurrently (spec §4.12).
 *
 * @example
 * const echo: Handler = {
 *   async execute({ node, context }) {
 *     return { status: 'success', contextUpdates: { [`${node.id}.seen`]: context.getString('graph.goal') } };
 *   },
 * };
 */
export interface Handler {
  /** Executes the node once (one attempt); see {@link HandlerExecuteInput}. */
  execute(input: HandlerExecuteInput): Promise<Outcome>;
}
