/**
 * The node handler contract of spec §4.1 / DESIGN.md "Handler contract".
 */
import type { Graph, GraphNode } from '@attractor/graph';
import type { Context } from './context.js';
import type { HandlerRuntime } from './handler-runtime.js';
import type { Outcome } from './outcome.js';

/**
 * Executes one node (spec §4.1). Register it with `HandlerRegistry.register(type, handler)`.
 *
 * - `context` is the run context; read it freely, but prefer returning `contextUpdates` to writing it.
 * - `logsRoot` is the run directory; the stage's own directory is `runtime.stageDir` (already created).
 * - Honour `runtime.abortSignal` (node timeout, run cancellation).
 * - Return FAIL outcomes for expected failures. A thrown error becomes a FAIL outcome with the error's message
 *   (its `retryable` field, when present, is respected); the engine never crashes because a handler threw.
 * - Handlers must be stateless or guard shared state: parallel branches call them concurrently (spec §4.12).
 *
 * @example
 * const echo: Handler = {
 *   async execute(node, context) {
 *     return { status: 'success', contextUpdates: { [`${node.id}.seen`]: context.getString('graph.goal') } };
 *   },
 * };
 */
export interface Handler {
  execute(
    node: GraphNode,
    context: Context,
    graph: Graph,
    logsRoot: string,
    runtime: HandlerRuntime,
  ): Promise<Outcome>;
}
