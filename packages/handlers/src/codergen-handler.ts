/**
 * The `codergen` handler (spec §4.5): builds the prompt, records `prompt.md` / `response.md` in the stage directory,
 * and calls the LLM backend with the engine's `CodergenRequest`. The engine writes the final `status.json` (with
 * secrets redacted) after the stage.
 */
import {
  type CodergenBackend,
  type Context,
  createSecretMasker,
  type DeclaredHandler,
  defineHandler,
  inputsOfContext,
  itemsOfContext,
  type JsonValue,
  type Outcome,
} from '@attractor/engine';
import { expandVariables, type Graph, type GraphNode, SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';
import { createCodergenRequest, errorToFailOutcome } from './codergen-request.js';
import { readWrittenStatus, removeStatusFile } from './stage-files.js';
import { checkStructuredOutput, type OutputSchema, readOutputSchema } from './structured-output.js';

/** Length of `last_response` in the context, in characters (spec §4.5). */
export const LAST_RESPONSE_MAX_CHARS = 200;

/** Options of {@link createCodergenHandler}. */
export interface CodergenHandlerOptions {
  /**
   * The backend to call. Default: `runtime.backend` (the one given to `runPipeline`). Without either, the stage
   * fails with an explanation instead of pretending (use `createSimulationBackend()` for offline runs).
   */
  readonly backend?: CodergenBackend;
}

/**
 * The prompt of an LLM stage (spec §4.5): the node's `prompt`, else its `label`, with `$goal` replaced by the
 * graph goal (`expandVariables`; a no-op when the `expand_goal_variable` transform already ran) and `$input.<name>`
 * by the run's input (README "Typed data"; `context` holds them as `input.<name>`), and `$item.<name>` by the item a
 * foreach bound to `<name>` (`item.<name>`). `$context.<key>` stays as written. Without `context`, `$input.<name>`
 * and `$item.<name>` stay as written too.
 */
export function buildStagePrompt(node: GraphNode, graph: Graph, context?: Context): string {
  const text = node.prompt.trim() === '' ? node.label : node.prompt;
  return expandVariables(text, {
    goal: graph.settings.goal,
    ...(context === undefined ? {} : contextVariables(context.snapshot())),
  }).text;
}

function contextVariables(values: Readonly<Record<string, JsonValue>>) {
  return { inputs: inputsOfContext(values), items: itemsOfContext(values) };
}

/**
 * Creates the `codergen` handler (spec §4.5).
 *
 * Per attempt it writes `prompt.md`, removes a stale `status.json`, calls `backend.run(request)` with the full
 * `CodergenRequest` (fidelity, thread key, preamble, abort signal, stage and working directories, event sink,
 * `takeSteering()` over the stage's `steer/`), writes `response.md` for a text answer, and returns SUCCESS with
 * `last_stage` and `last_response` (first 200 characters) in the context updates. A backend may instead return an
 * `Outcome`. A `status.json` that the backend's agent wrote in the stage directory during the stage overrides
 * both (spec Appendix C); its context updates are merged over `last_stage` / `last_response`. A thrown error
 * becomes FAIL with its message, keeping its `retryable` flag (spec Appendix D). The engine then writes the
 * final outcome to `status.json` (spec §11.3).
 *
 * @example
 * registry.register('codergen', createCodergenHandler({ backend: createSimulationBackend() }));
 */
export function createCodergenHandler(options: CodergenHandlerOptions = {}): DeclaredHandler {
  return defineHandler({
    type: 'codergen',
    ...SPEC_HANDLER_DECLARATIONS.codergen,
    async execute({ node, context, graph, runtime }) {
      // The prompt goes to a model and to prompt.md: secrets never reach either
      // (docs/architecture.md "Secrets").
      const secrets = runtime.secrets ?? createSecretMasker();
      const prompt = secrets.maskText(buildStagePrompt(node, graph, context));
      await runtime.stage.writeFile('prompt.md', prompt);
      await removeStatusFile(runtime.stage);
      const backend = options.backend ?? runtime.backend;
      if (backend === undefined) {
        return {
          status: 'fail',
          failureReason: `Node "${node.id}" is an LLM stage (codergen) but the run has no backend: pass \`backend\` to runPipeline or createDefaultRegistry, or use createSimulationBackend() to run offline.`,
          retryable: false,
        };
      }
      const outputSchema = await readOutputSchema({ node, graph, workdir: runtime.workdir });
      if (!outputSchema.ok) return { status: 'fail', failureReason: outputSchema.reason, retryable: false };
      const schema = outputSchema.schema;
      const request = createCodergenRequest({
        node,
        graph,
        prompt,
        context,
        runtime,
        ...(schema === undefined ? {} : { outputSchema: schema }),
      });
      let outcome: Outcome;
      let reply: string | undefined;
      try {
        const result = await backend.run(request);
        reply = typeof result === 'string' ? result : undefined;
        if (typeof result === 'string') {
          await runtime.stage.writeFile('response.md', secrets.maskText(result));
          outcome = {
            status: 'success',
            notes: `Stage completed: ${node.id}`,
            contextUpdates: {
              last_stage: node.id,
              last_response: result.slice(0, LAST_RESPONSE_MAX_CHARS),
            },
          };
        } else {
          outcome = {
            ...result,
            contextUpdates: { last_stage: node.id, ...(result.contextUpdates ?? {}) },
          };
        }
      } catch (error) {
        outcome = errorToFailOutcome(error);
      }
      const written = await readWrittenStatus(runtime.stage);
      if (written !== undefined) outcome = mergeWritten(outcome, written);
      if (schema !== undefined && (outcome.status === 'success' || outcome.status === 'partial_success')) {
        outcome = withStructuredOutput({
          outcome,
          node,
          schema,
          text: reply ?? (await runtime.stage.readText('response.md')) ?? '',
        });
      }
      return outcome;
    },
  });
}

/**
 * A successful outcome with the stage's structured output checked (README "Typed data"): its mapped fields added to
 * the context updates, or a retryable FAIL naming every problem, which commits none of the output (the backend's
 * own updates, such as token usage, stay).
 */
function withStructuredOutput(options: {
  readonly outcome: Outcome;
  readonly node: GraphNode;
  readonly schema: OutputSchema;
  readonly text: string;
}): Outcome {
  const { outcome } = options;
  const checked = checkStructuredOutput({
    node: options.node,
    text: options.text,
    schema: options.schema,
    source: 'the reply, response.md',
  });
  if (!checked.ok) {
    return {
      status: 'fail',
      failureReason: checked.reason,
      retryable: true,
      ...(outcome.contextUpdates === undefined ? {} : { contextUpdates: outcome.contextUpdates }),
    };
  }
  return { ...outcome, contextUpdates: { ...outcome.contextUpdates, ...checked.contextUpdates } };
}

/** A `status.json` written during the stage wins; its context updates go over the handler's own. */
function mergeWritten(own: Outcome, written: Outcome): Outcome {
  const contextUpdates: Record<string, JsonValue> = {
    ...(own.contextUpdates ?? {}),
    ...(written.contextUpdates ?? {}),
  };
  return { ...written, contextUpdates };
}
