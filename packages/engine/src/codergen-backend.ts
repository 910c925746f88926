/**
 * The LLM backend contract of spec §4.5 (`CodergenBackend`), extended with what a real agent needs: fidelity and
 * thread key (spec §5.4), cancellation, the stage directory, the working directory, an event sink and steering.
 * `@attractor/backend-ai-sdk` implements it; `@attractor/handlers` ships a `SimulationBackend`.
 */
import type { FidelityMode, Graph, GraphNode } from '@attractor/graph';
import type { CommandSandbox } from './command-sandbox.js';
import type { Context } from './context.js';
import type { Outcome } from './outcome.js';
import type { EmittableEvent } from './pipeline-event.js';
import type { StageTelemetry } from './pipeline-telemetry.js';
import type { SecretMasker } from './redact-secrets.js';
import type { RunUsage } from './usage-ledger.js';

/** Everything the backend needs for one codergen stage attempt. */
export interface CodergenRequest {
  /** The node being executed (model, provider and reasoning effort come from its typed fields). */
  readonly node: GraphNode;
  readonly graph: Graph;
  /** The prompt after `$goal` expansion (falls back to the node label when the node has no prompt). */
  readonly prompt: string;
  /** The run context (read-only by convention; return `contextUpdates` in an Outcome to change it). */
  readonly context: Context;
  /** The resolved fidelity mode (spec §5.4). `full` means: continue the session of `threadKey`. */
  readonly fidelity: FidelityMode;
  /** Session key: stages with the same key share one conversation under `full` fidelity (spec §5.4). */
  readonly threadKey: string;
  /** Text describing the run so far, sized by the fidelity mode; empty for `full`. Prepend it to a fresh session. */
  readonly preamble: string;
  /** Aborted on node timeout or run cancellation; stop promptly and reject or return a FAIL outcome. */
  readonly abortSignal: AbortSignal;
  /** The stage directory `{logsRoot}/{nodeId}` (exists), for transcripts and tool logs. */
  readonly stageDir: string;
  /** The run's working directory: the root that coding tools are confined to. */
  readonly workdir: string;
  /** Emits a stage-scoped event (tool calls, text, usage); the engine stamps and records it. */
  readonly emit: (event: EmittableEvent) => void;
  /**
   * Takes the steering messages a manager loop wrote for this stage since the last call, oldest first, and
   * removes them (the codergen handler reads and deletes the files in `{stageDir}/steer/`). Call it between
   * model turns and add the messages to the conversation as user messages.
   */
  readonly takeSteering: () => Promise<string[]>;
  /**
   * The run's secret masker (`runtime.secrets`; docs/architecture.md "Secrets"): a backend masks with it
   * everything it writes to the stage directory (transcripts, `prompt.md`) and every message it reports, so
   * that values the run treats as secret (`--secret NAME`, secret-named environment variables, token shapes)
   * never reach a file. Absent in requests built by hand; a backend then masks what it knows itself.
   */
  readonly secrets?: SecretMasker;
  /**
   * The run's usage and budget (`runtime.usage`): call `usage.checkBudget()` before each model call (it throws
   * `BudgetExceededError` once the run spent its budget), and emit an `agent.usage` event per call, which the run
   * counts. Absent in requests built by hand.
   */
  readonly usage?: RunUsage;
  /**
   * The run's sandbox (`runtime.sandbox`): a backend that starts a program (an agent CLI, a shell command of its own)
   * starts `sandbox.wrap(...)` of it instead, with the working directory, the stage directory and the program's own
   * state writable. Absent when the run asked for none.
   */
  readonly sandbox?: CommandSandbox;
  /**
   * The stage attempt's OpenTelemetry span context and tracer (`runtime.telemetry`): a backend starts its spans (model
   * calls, an agent process) under `telemetry.context`, with prompt and response text only when
   * `telemetry.recordContent`. Absent when the run has no tracer.
   */
  readonly telemetry?: StageTelemetry;
  /**
   * The JSON Schema the stage's reply must match (the node's `output_schema`, README "Typed data"). A backend that
   * can ask the model for structured output does (the AI SDK backend sends it as the response format); the reply
   * text is the JSON. The codergen handler validates it either way. Absent for a text stage.
   */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

/**
 * An LLM backend (spec §4.5 `CodergenBackend`). Returns the response text (the handler turns it into a SUCCESS
 * outcome with `last_response`) or a full {@link Outcome}. Throw an error with `retryable: boolean` for
 * provider failures; the engine reads only that field to decide on retries (CONTRIBUTING.md "Errors").
 *
 * @example
 * const echo: CodergenBackend = { run: async (request) => `You said: ${request.prompt}` };
 */
export interface CodergenBackend {
  run(request: CodergenRequest): Promise<string | Outcome>;
  /**
   * Called by the engine once a run this backend served has ended, however it ended (completed, failed, cancelled,
   * or stopped by an error), once for each run directory the run used (`logsRoot`; a `loop_restart` adds one per
   * restart). Stage directories of the run are at or under it. Release what the backend holds for the run: the AI SDK
   * backend stops the run's MCP servers here. Errors are ignored. Optional.
   */
  endRun?(run: { readonly logsRoot: string }): Promise<void>;
}
