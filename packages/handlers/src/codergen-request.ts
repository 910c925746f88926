/**
 * Builds the engine's `CodergenRequest` for a stage (shared by the codergen and fan-in handlers).
 */
import type { CodergenRequest, Context, HandlerRuntime, Outcome } from '@attractor/engine';
import type { Graph, GraphNode } from '@attractor/graph';
import { takeSteeringMessages } from './stage-files.js';

/** Options of {@link createCodergenRequest}. */
export interface CreateCodergenRequestOptions {
  readonly node: GraphNode;
  readonly graph: Graph;
  readonly prompt: string;
  readonly context: Context;
  readonly runtime: HandlerRuntime;
  /** The node's `output_schema`, resolved (see `readOutputSchema`). Default: none, a text stage. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

/**
 * The request for `backend.run`: fidelity, thread key and preamble from `runtime.fidelity` (the preamble is built
 * only when read), the stage's abort signal, stage and working directories, event sink, and `takeSteering()`
 * reading and removing the stage's `steer/*.md`.
 */
export function createCodergenRequest(options: CreateCodergenRequestOptions): CodergenRequest {
  const { runtime } = options;
  return {
    node: options.node,
    graph: options.graph,
    prompt: options.prompt,
    context: options.context,
    fidelity: runtime.fidelity.mode,
    threadKey: runtime.fidelity.threadKey,
    get preamble() {
      return runtime.fidelity.preamble;
    },
    abortSignal: runtime.abortSignal,
    stageDir: runtime.stageDir,
    workdir: runtime.workdir,
    emit: (event) => runtime.emit(event),
    takeSteering: () => takeSteeringMessages(runtime.stage),
    ...(runtime.secrets === undefined ? {} : { secrets: runtime.secrets }),
    ...(options.outputSchema === undefined ? {} : { outputSchema: options.outputSchema }),
  };
}

/** A FAIL outcome for a thrown error, keeping its `retryable` flag when it has one (spec Appendix D). */
export function errorToFailOutcome(error: unknown, what = 'the backend'): Outcome {
  const message = error instanceof Error ? error.message : String(error);
  const retryable =
    typeof error === 'object' && error !== null ? (error as { retryable?: unknown }).retryable : undefined;
  return {
    status: 'fail',
    failureReason: message === '' ? `${what} threw an error without a message` : message,
    ...(typeof retryable === 'boolean' ? { retryable } : {}),
  };
}
