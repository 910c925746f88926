/**
 * The `SimulationBackend`: a `CodergenBackend` without an LLM (spec §4.5 simulation mode), optionally following a
 * script of outcomes per node so routing can be tried offline.
 */
import type { CodergenBackend, Outcome } from '@attractor/engine';
import { parseSimulationScript, type SimulationScript } from './simulation-script.js';

/** Options of {@link createSimulationBackend}. */
export interface SimulationBackendOptions {
  /**
   * Outcome words per node id, one per call (`{ "test": ["fail", "success"], "classify": ["bug"] }`); validated
   * like `loadSimulationScript`. Nodes not listed, and nodes whose list is exhausted, succeed. Default: `{}`.
   */
  readonly script?: SimulationScript;
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
 * Creates a backend that answers every stage with `[Simulated] Response for stage: <id>` (spec §4.5). With a
 * script, the n-th call for a node returns the n-th outcome word of its list: `success` gives the simulated
 * response text, any other word (`fail`, `retry`, `partial_success`, or a custom word like `bug`) gives an
 * `Outcome` with that status, the simulated text as `last_response` and, for `fail`/`retry`, a failure reason
 * naming the script entry. The counters live in the backend: use one backend per run.
 *
 * @throws {SimulationScriptError} when `script` does not have the expected shape.
 * @example
 * const backend = createSimulationBackend({ script: { classify: ['bug'] } });
 * await runPipeline({ graph, registry: createDefaultRegistry(), backend, logsRoot });
 */
export function createSimulationBackend(options: SimulationBackendOptions = {}): SimulationBackend {
  const script = parseSimulationScript(options.script ?? {});
  const calls = new Map<string, number>();
  return {
    calls,
    async run(request) {
      const nodeId = request.node.id;
      const call = (calls.get(nodeId) ?? 0) + 1;
      calls.set(nodeId, call);
      const text = simulatedResponse(nodeId);
      const steps = Object.hasOwn(script, nodeId) ? script[nodeId]! : [];
      const word = steps[call - 1];
      if (word === undefined || word === 'success') return text;
      const outcome: Outcome = {
        status: word,
        notes: `[Simulated] outcome "${word}" for stage ${nodeId} (call ${call} of the script)`,
        contextUpdates: { last_response: text },
        ...(word === 'fail' || word === 'retry'
          ? { failureReason: `simulated ${word} (script entry ${call} for "${nodeId}")` }
          : {}),
      };
      return outcome;
    },
  };
}
