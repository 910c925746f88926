/**
 * The `SimulationBackend`: a `CodergenBackend` without an LLM (spec §4.5 simulation mode), optionally following a
 * script of outcomes per node so routing can be tried offline.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CodergenBackend, CodergenRequest, JsonValue, Outcome } from '@attractor/engine';
import { sample } from 'openapi-sampler';
import { LAST_RESPONSE_MAX_CHARS } from './codergen-handler.js';
import { createRouteFinder, type RouteFinder } from './route-finder.js';
import { parseSimulationScript, readSimulationStep, type SimulationScript } from './simulation-script.js';

/** Options of {@link createSimulationBackend}. */
export interface SimulationBackendOptions {
  /**
   * Outcome words per node id, one per call (`{ "test": ["fail", "success"], "classify": ["bug"] }`); validated
   * like `loadSimulationScript`. Nodes not listed, and nodes whose list is exhausted, succeed. A step object's
   * `outcome` counts like a word; a step with `stdout` (meant for dry-run tool nodes) fails the stage with a
   * reason saying so. Default: `{}`.
   */
  readonly script?: SimulationScript;
  /**
   * Calls each node already made in the run before this backend (`readSimulationCalls` of a run being resumed or
   * forked): a node's next call takes the step after them, so a resumed run takes each node's next step. Default:
   * none (every node starts at its first step).
   */
  readonly calls?: ReadonlyMap<string, number>;
  /**
   * Chooses the route of each unscripted stage (see `createRouteFinder`); share one with the registry's handlers
   * (`createDefaultRegistry({ routes })`) so that the whole run follows one seed. Default: a route finder of seed 0.
   */
  readonly routes?: RouteFinder;
}

/** A {@link CodergenBackend} that simulates responses; `calls` counts the calls per node id. */
export interface SimulationBackend extends CodergenBackend {
  /** Calls so far per node id (attempts and visits both count). */
  readonly calls: ReadonlyMap<string, number>;
}

/** The simulated response text of spec §4.5 for a node id. */
export function simulatedResponse(nodeId: string): string {
  return `[Simulated] Response for stage: ${nodeId}`;
}

/**
 * The simulated reply of a stage: for a stage with an `output_schema` (README "Typed data"), the JSON text of a
 * minimal value valid for its schema (built by `openapi-sampler`: the first `enum` value, `"string"`, `0` or the
 * minimum, `true`, one-item lists, every listed property), so typed pipelines run offline; else spec §4.5's
 * `[Simulated] Response for stage: <id>`.
 */
export function simulatedReply(request: Pick<CodergenRequest, 'node' | 'outputSchema'>): string {
  if (request.outputSchema === undefined) return simulatedResponse(request.node.id);
  return JSON.stringify(sampleJsonValue(request.outputSchema));
}

/**
 * A minimal JSON value valid for `schema` (a JSON Schema object), built by `openapi-sampler`: the first `enum` value,
 * `"string"`, `0` or the minimum, `true`, one-item lists, every listed property. Deterministic. What the simulation
 * answers for an `output_schema`, and what `attractor new` gives a drafted pipeline's declared `inputs` for its one
 * simulated run.
 *
 * @throws {Error} when the sampler cannot build a value for the schema (an unresolvable `$ref`, say).
 */
export function sampleJsonValue(schema: Readonly<Record<string, unknown>>): JsonValue {
  return sample(schema as Parameters<typeof sample>[0], { quiet: true }) as JsonValue;
}

/**
 * Creates a backend that answers every stage with `[Simulated] Response for stage: <id>` (spec §4.5), or, for a
 * stage with an `output_schema`, with a minimal JSON value valid for it (`simulatedReply`). A step's `response`
 * replaces the reply (checked against the `output_schema` by the codergen handler like a real reply). With a
 * script, the n-th call for a node returns the n-th outcome word of its list: `success` gives the simulated
 * response text, any other word (`fail`, `retry`, `partial_success`, or a custom word like `bug`) gives an
 * `Outcome` with that status, the simulated text as `last_response` and, for `fail`/`retry`, a failure reason
 * naming the script entry. An unscripted LLM stage finds its way (`routes`): when its plain answer would take no edge
 * or lead away from the exit (a loop that waits for `outcome=success` of a check, `context.last_response contains
 * PLAN_READY`, `preferred_label=scored`), it returns the outcome, preferred label and context values (the response
 * with the words its conditions look for) of the route the route finder picks, and says which edge it aims for in a
 * `stage.log` event and in the outcome's notes. A `fail` it aims for is not retried. The counters live in the backend:
 * use one backend per run, and give it the calls the run already made (`calls`) when it resumes one.
 *
 * @throws {SimulationScriptError} when `script` does not have the expected shape.
 * @example
 * const routes = createRouteFinder({ seed: 1 });
 * const backend = createSimulationBackend({ script: { classify: ['bug'] }, routes });
 * await runPipeline({ graph, registry: createDefaultRegistry({ routes }), backend, logsRoot });
 */
export function createSimulationBackend(options: SimulationBackendOptions = {}): SimulationBackend {
  const script = parseSimulationScript(options.script ?? {});
  const calls = new Map<string, number>(options.calls ?? []);
  const routes = options.routes ?? createRouteFinder();
  return {
    calls,
    async run(request) {
      const nodeId = request.node.id;
      const call = (calls.get(nodeId) ?? 0) + 1;
      calls.set(nodeId, call);
      const steps = Object.hasOwn(script, nodeId) ? script[nodeId]! : [];
      const scripted = steps[call - 1];
      const step = readSimulationStep(scripted);
      let text: string;
      try {
        text = step.response ?? simulatedReply(request);
      } catch (error) {
        return {
          status: 'fail',
          failureReason: `the simulation cannot build a value for the output_schema of "${nodeId}" (${(error as Error).message}); give one in the simulation script: {"${nodeId}": [{"response": ...}]}`,
          retryable: false,
        };
      }
      // An outcome object carries no reply: the codergen handler reads a structured one from response.md.
      const withReply = async (outcome: Outcome): Promise<Outcome> => {
        if (request.outputSchema !== undefined || step.response !== undefined) {
          await writeFile(join(request.stageDir, 'response.md'), request.secrets?.maskText(text) ?? text);
        }
        return outcome;
      };
      if (step.stdout !== undefined) {
        return {
          status: 'fail',
          failureReason: `simulation script entry ${call} for "${nodeId}" sets "stdout", but "${nodeId}" is an LLM stage; "stdout" is for tool nodes in a dry run, give an outcome word instead`,
          retryable: false,
        };
      }
      if (scripted === undefined) {
        // A fan-in's call is its judge's answer, not the stage's routing: it stays plain.
        if (request.graph.handlerType(request.node) === 'parallel.fan_in') return text;
        const aim = routes.aim({
          graph: request.graph,
          node: request.node,
          context: request.context,
          visit: call,
          statuses: ['success'],
          baseUpdates: { last_response: text.slice(0, LAST_RESPONSE_MAX_CHARS) },
        });
        if (aim === undefined) return text;
        request.emit({ type: 'stage.log', level: 'info', message: `[Simulated] ${aim.description}` });
        return withReply({
          status: aim.status,
          ...(aim.preferredLabel === undefined ? {} : { preferredLabel: aim.preferredLabel }),
          ...(aim.suggestedNextIds === undefined ? {} : { suggestedNextIds: aim.suggestedNextIds }),
          notes: `[Simulated] stage ${nodeId} ${aim.description}`,
          contextUpdates: aim.contextUpdates,
          ...(aim.status === 'fail' || aim.status === 'retry'
            ? { failureReason: `simulated ${aim.status}: the route ${aim.description}`, retryable: false }
            : {}),
        });
      }
      const word = step.outcome;
      if (word === undefined || word === 'success') return text;
      const outcome: Outcome = {
        status: word,
        notes: `[Simulated] outcome "${word}" for stage ${nodeId} (call ${call} of the script)`,
        contextUpdates: { last_response: text.slice(0, LAST_RESPONSE_MAX_CHARS) },
        ...(word === 'fail' || word === 'retry'
          ? { failureReason: `simulated ${word} (script entry ${call} for "${nodeId}")` }
          : {}),
      };
      return withReply(outcome);
    },
  };
}
