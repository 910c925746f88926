/**
 * The `SimulationBackend`: a `CodergenBackend` without an LLM (spec §4.5 simulation mode), optionally following a
 * script of outcomes per node so routing can be tried offline.
 */
import type { CodergenBackend, CodergenRequest, Outcome } from '@attractor/engine';
import { evaluateRunCondition } from '@attractor/engine';
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

/** `outcome=<word>` in a condition: the words a node's edges route on. Each candidate is checked by evaluation. */
const OUTCOME_CLAUSE = /(?:^|&&)\s*outcome\s*=\s*"?([A-Za-z_][A-Za-z0-9_.:-]*)"?/g;

/**
 * For an unscripted stage: the first custom outcome word named by the node's conditional edges (declaration order)
 * that one of them accepts, when a plain `success` would reach no edge at all (e.g. edges on `outcome=process` /
 * `outcome=done`). Without it a simulated or dry run stops at once at such a node with "no eligible edge".
 * `undefined` when `success` routes, or when no custom word does (`fail`/`retry` are never chosen).
 */
function routableOutcome(request: CodergenRequest): string | undefined {
  const edges = request.graph.outgoing(request.node.id);
  const accepts = (outcome: string) =>
    edges.some((edge) => {
      if (edge.condition.trim() === '') return outcome === 'success';
      try {
        return evaluateRunCondition({ condition: edge.condition, context: request.context, outcome });
      } catch {
        // An invalid condition is a lint error; it routes nowhere here.
        return false;
      }
    });
  if (edges.length === 0 || accepts('success')) return undefined;
  for (const edge of edges) {
    for (const match of edge.condition.matchAll(OUTCOME_CLAUSE)) {
      const word = match[1]!;
      if (word !== 'fail' && word !== 'retry' && accepts(word)) return word;
    }
  }
  return undefined;
}

/**
 * Creates a backend that answers every stage with `[Simulated] Response for stage: <id>` (spec §4.5). With a
 * script, the n-th call for a node returns the n-th outcome word of its list: `success` gives the simulated
 * response text, any other word (`fail`, `retry`, `partial_success`, or a custom word like `bug`) gives an
 * `Outcome` with that status, the simulated text as `last_response` and, for `fail`/`retry`, a failure reason
 * naming the script entry. An unscripted stage whose outgoing edges all need a custom outcome word (none accepts
 * `success`) returns the first such word its edges name, so a simulated run follows the route instead of stopping.
 * The counters live in the backend: use one backend per run, and give it the calls the run already made
 * (`calls`) when it resumes one.
 *
 * @throws {SimulationScriptError} when `script` does not have the expected shape.
 * @example
 * const backend = createSimulationBackend({ script: { classify: ['bug'] } });
 * await runPipeline({ graph, registry: createDefaultRegistry(), backend, logsRoot });
 */
export function createSimulationBackend(options: SimulationBackendOptions = {}): SimulationBackend {
  const script = parseSimulationScript(options.script ?? {});
  const calls = new Map<string, number>(options.calls ?? []);
  return {
    calls,
    async run(request) {
      const nodeId = request.node.id;
      const call = (calls.get(nodeId) ?? 0) + 1;
      calls.set(nodeId, call);
      const text = simulatedResponse(nodeId);
      const steps = Object.hasOwn(script, nodeId) ? script[nodeId]! : [];
      const scripted = steps[call - 1];
      const step = readSimulationStep(scripted);
      if (step.stdout !== undefined) {
        return {
          status: 'fail',
          failureReason: `simulation script entry ${call} for "${nodeId}" sets "stdout", but "${nodeId}" is an LLM stage; "stdout" is for tool nodes in a dry run, give an outcome word instead`,
          retryable: false,
        };
      }
      const word = scripted === undefined ? routableOutcome(request) : step.outcome;
      if (word === undefined || word === 'success') return text;
      const outcome: Outcome = {
        status: word,
        notes:
          scripted === undefined
            ? `[Simulated] outcome "${word}" for stage ${nodeId}: the outcome its conditional edges route on (success reaches no edge)`
            : `[Simulated] outcome "${word}" for stage ${nodeId} (call ${call} of the script)`,
        contextUpdates: { last_response: text },
        ...(word === 'fail' || word === 'retry'
          ? { failureReason: `simulated ${word} (script entry ${call} for "${nodeId}")` }
          : {}),
      };
      return outcome;
    },
  };
}
