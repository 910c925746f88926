/**
 * Builds the engine's `CodergenRequest` for a stage (shared by the codergen and fan-in handlers).
 */
import {
  type CodergenRequest,
  Context,
  createSecretMasker,
  type HandlerRuntime,
  type Outcome,
  type SecretMasker,
} from '@attractor/engine';
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
 * only when read), the context with its secrets masked (copied when first read), the stage's abort signal, stage
 * and working directories, event sink, and `takeSteering()` reading and removing the stage's `steer/*.md`, the run's
 * usage and budget (`runtime.usage`) and its sandbox (`runtime.sandbox`).
 */
export function createCodergenRequest(options: CreateCodergenRequestOptions): CodergenRequest {
  const { runtime } = options;
  let masked: Context | undefined;
  return {
    node: options.node,
    graph: options.graph,
    prompt: options.prompt,
    // A copy with secrets masked, made when the backend first reads it: a backend (a plug-in's too) talks to a model
    // or writes files, and never gets a secret-named key's value at any depth (issue 34 §12).
    get context() {
      masked ??= maskedContext(options.context, runtime.secrets ?? createSecretMasker());
      return masked;
    },
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
    ...(runtime.usage === undefined ? {} : { usage: runtime.usage }),
    ...(runtime.sandbox === undefined ? {} : { sandbox: runtime.sandbox }),
    ...(runtime.telemetry === undefined ? {} : { telemetry: runtime.telemetry }),
    ...(options.outputSchema === undefined ? {} : { outputSchema: options.outputSchema }),
  };
}

/** A copy of `context` whose values and log are masked by `secrets`: a string or number under a secret-named key is replaced at any depth. */
function maskedContext(context: Context, secrets: SecretMasker): Context {
  return new Context(
    secrets.mask(context.snapshot()),
    context.logs().map((entry) => secrets.maskText(entry)),
  );
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
