/**
 * What every agent-CLI backend does around the agent itself for one stage attempt: the full prompt and
 * `prompt.md`, the agent's environment, the transcript, the live `agent.*` events, and the Outcome
 * (docs/architecture.md "Agent-CLI backends"). Each backend translates its agent's stream into calls on an
 * {@link AgentStage}.
 */
import {
  type Clock,
  type CodergenRequest,
  type JsonValue,
  type Outcome,
  redactSecrets,
} from '@attractor/engine';
import { comparedLiterals } from '@attractor/graph';
import type { AgentName } from './agent-name.js';
import { spanMask, startAgentSpan } from './agent-span.js';
import {
  createTranscriptWriter,
  secretValuesOf,
  type TranscriptWriter,
  writeStageFile,
} from './stage-files.js';

/** Characters of the final text kept in `last_response` (spec §4.5). */
const LAST_RESPONSE_MAX_CHARS = 200;
/** Characters of a tool result kept in an `agent.tool_call.completed` event. */
const TOOL_OUTPUT_MAX_CHARS = 2000;

/** Token counts (and cost, when the agent reports one) of a stage attempt. */
export interface AgentUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** US dollars. */
  readonly costUsd?: number;
  readonly model?: string;
}

/**
 * How an agent's run ended, as its backend understood the stream and the exit. A success's `text` is the final answer
 * (`response.md`): for a stage with an `output_schema`, the JSON of the agent's structured result where it gives one.
 */
export type AgentEnding =
  | { readonly kind: 'success'; readonly text: string }
  | { readonly kind: 'error'; readonly message: string; readonly retryable: boolean; readonly text?: string };

/** One stage attempt of an agent; see {@link startAgentStage}. */
export interface AgentStage {
  /** The prompt to send: the preamble (unless the stage continues a session), the stage prompt and the outcome note. */
  readonly prompt: string;
  /** The agent's environment: the backend's `env` plus `ATTRACTOR_STAGE_DIR`, `ATTRACTOR_NODE_ID`, `ATTRACTOR_WORKDIR`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly transcript: TranscriptWriter;
  /** Records the agent's session id and emits `agent.session.started` (once per attempt). */
  session(sessionId: string, model?: string): void;
  /** The agent wrote a whole message of text. */
  text(text: string): void;
  toolStarted(callId: string, toolName: string, input: unknown): void;
  toolCompleted(callId: string, output: string, isError: boolean, toolName?: string): void;
  /** Emits a `stage.log` line (an agent's warning, for example). */
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
  /** Adds token counts (and cost) and emits `agent.usage`. */
  usage(usage: AgentUsage): void;
  /** The session id reported so far. */
  readonly sessionId: string | undefined;
  /** Writes `response.md`, flushes the transcript and builds the Outcome. */
  finish(ending: AgentEnding): Promise<Outcome>;
}

/** Options of {@link startAgentStage}. */
export interface StartAgentStageOptions {
  readonly request: CodergenRequest;
  readonly agent: AgentName;
  /** True when the stage continues an earlier session (`full` fidelity): the preamble is left out. */
  readonly resumed: boolean;
  /** The backend's environment for the agent (the CLI passes its own). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clock: Clock;
  /**
   * True for an agent without a structured-output option of its own (Gemini CLI): a stage with an `output_schema`
   * gets {@link outputSchemaNote} at the end of its prompt. Default: false (the backend passes the schema itself).
   */
  readonly outputSchemaInPrompt?: boolean;
}

/**
 * The note appended to the prompt of a stage with an `output_schema` (README "Typed data") for an agent that cannot
 * be given the schema otherwise: the schema, and that the final answer is one JSON value of it and nothing else. The
 * codergen handler checks the final text against the schema either way.
 */
export function outputSchemaNote(schema: Readonly<Record<string, unknown>>): string {
  return [
    'Your final answer must be a single JSON value that matches this JSON Schema, and nothing else: answer with',
    'JSON only, without prose or a code fence around it.',
    '',
    JSON.stringify(schema, null, 2),
  ].join('\n');
}

/**
 * The note appended to every stage prompt: how the agent reports an outcome other than success (spec Appendix C),
 * naming the custom outcomes the node's edges route on.
 */
export function outcomeNote(outcomes: readonly string[]): string {
  const words = outcomes.length === 0 ? '' : ` Outcomes this stage's edges route on: ${outcomes.join(', ')}.`;
  return [
    'When the stage cannot succeed, or its result is one of the routed outcomes, write a JSON file to',
    '$ATTRACTOR_STAGE_DIR/status.json, e.g. {"outcome": "fail", "failure_reason": "why", "notes": "what you did"}.',
    `Otherwise just finish normally.${words}`,
  ].join(' ');
}

/** Outcome words the conditions of the node's outgoing edges compare with, other than `success`. */
function routedOutcomes(request: CodergenRequest): string[] {
  const words = new Set<string>();
  for (const edge of request.graph.outgoing(request.node.id)) {
    for (const word of comparedLiterals(edge.condition, ['outcome'])) {
      if (word !== 'success') words.add(word);
    }
  }
  return [...words];
}

/**
 * Starts one stage attempt: builds the prompt (with {@link outputSchemaNote} when `outputSchemaInPrompt` and the
 * stage has an `output_schema`), writes `prompt.md`, opens the transcript. The returned object
 * turns the agent's messages into `agent.*` events and, at the end, into the stage's Outcome:
 * - success: SUCCESS with `last_response` (first 200 characters), `agent.<node>.session_id`, token counts
 *   `usage.<node>.*`, and `cost.<node>.usd` when reported (the run's totals `usage.total.*` are the engine's, from
 *   the `agent.usage` events);
 * - an agent error, or a result marked as an error: FAIL with the agent's message (`retryable` as the agent's
 *   error allows).
 * A `status.json` the agent wrote in `$ATTRACTOR_STAGE_DIR` then overrides either (the codergen handler reads it).
 */
export async function startAgentStage(options: StartAgentStageOptions): Promise<AgentStage> {
  const { request, clock } = options;
  const nodeId = request.node.id;
  // The agent makes its model calls itself: the run's budget is checked once, before it starts.
  request.usage?.checkBudget();
  const parts = [
    ...(options.resumed || request.preamble.trim() === '' ? [] : [request.preamble.trim()]),
    request.prompt,
    outcomeNote(routedOutcomes(request)),
    ...(options.outputSchemaInPrompt === true && request.outputSchema !== undefined
      ? [outputSchemaNote(request.outputSchema)]
      : []),
  ];
  const prompt = parts.join('\n\n');
  const env: Record<string, string | undefined> = {
    ...options.env,
    ATTRACTOR_STAGE_DIR: request.stageDir,
    ATTRACTOR_NODE_ID: nodeId,
    ATTRACTOR_WORKDIR: request.workdir,
  };
  // The agent gets the prompt as it is; the file masks the environment's secrets and the run's (`--secret`).
  const environmentSecrets = secretValuesOf(env);
  const mask = spanMask(request.secrets, (text) => redactSecrets(text, environmentSecrets));
  await writeStageFile(request.stageDir, 'prompt.md', mask(prompt));
  const span = startAgentSpan({ request, agent: options.agent, prompt, mask });
  const transcript = createTranscriptWriter({
    stageDir: request.stageDir,
    clock,
    env,
    secrets: request.secrets,
  });
  transcript.write({
    type: 'stage_started',
    agent: options.agent,
    nodeId,
    fidelity: request.fidelity,
    threadKey: request.threadKey,
    resumed: options.resumed,
  });
  const toolsRunning = new Map<string, { toolName: string; startedAt: number }>();
  let sessionId: string | undefined;
  let lastText = '';
  const totals = { inputTokens: 0, outputTokens: 0, costUsd: undefined as number | undefined };

  const stage: AgentStage = {
    prompt,
    env,
    transcript,
    get sessionId() {
      return sessionId;
    },
    session(id, model) {
      if (sessionId !== undefined) return;
      sessionId = id;
      span.session(id, model);
      request.emit({
        type: 'agent.session.started',
        agent: options.agent,
        sessionId: id,
        resumed: options.resumed,
        ...(model === undefined ? {} : { model }),
      });
    },
    text(text) {
      if (text.trim() === '') return;
      lastText = text;
      request.emit({ type: 'agent.text', text, delta: false });
    },
    toolStarted(callId, toolName, input) {
      toolsRunning.set(callId, { toolName, startedAt: clock.now() });
      request.emit({ type: 'agent.tool_call.started', toolName, callId, arguments: toJson(input) });
    },
    toolCompleted(callId, output, isError, toolName) {
      const started = toolsRunning.get(callId);
      toolsRunning.delete(callId);
      request.emit({
        type: 'agent.tool_call.completed',
        toolName: started?.toolName ?? toolName ?? 'unknown',
        callId,
        output: output.length > TOOL_OUTPUT_MAX_CHARS ? `${output.slice(0, TOOL_OUTPUT_MAX_CHARS)}…` : output,
        isError,
        durationMs: started === undefined ? 0 : clock.now() - started.startedAt,
      });
    },
    log(level, message) {
      request.emit({ type: 'stage.log', level, message });
    },
    usage(usage) {
      totals.inputTokens += usage.inputTokens;
      totals.outputTokens += usage.outputTokens;
      if (usage.costUsd !== undefined) totals.costUsd = (totals.costUsd ?? 0) + usage.costUsd;
      span.usage(usage);
      request.emit({
        type: 'agent.usage',
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        ...(usage.model === undefined ? {} : { model: usage.model }),
        ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
      });
    },
    async finish(ending) {
      const text = ending.kind === 'success' ? ending.text || lastText : (ending.text ?? lastText);
      span.end({ text, ...(ending.kind === 'error' ? { error: ending.message } : {}) });
      await writeStageFile(request.stageDir, 'response.md', text);
      transcript.write({
        type: 'stage_finished',
        ending: ending.kind,
        ...(ending.kind === 'error' ? { message: ending.message } : {}),
        sessionId: sessionId ?? null,
        usage: totals,
      });
      await transcript.flush();
      const contextUpdates: Record<string, JsonValue> = {
        last_response: text.slice(0, LAST_RESPONSE_MAX_CHARS),
        ...(sessionId === undefined ? {} : { [`agent.${nodeId}.session_id`]: sessionId }),
        ...usageUpdates(nodeId, totals),
      };
      if (ending.kind === 'error') {
        return {
          status: 'fail',
          failureReason: ending.message,
          retryable: ending.retryable,
          contextUpdates,
        };
      }
      return { status: 'success', notes: `${options.agent} completed stage ${nodeId}`, contextUpdates };
    },
  };
  return stage;
}

function usageUpdates(
  nodeId: string,
  totals: { inputTokens: number; outputTokens: number; costUsd: number | undefined },
): Record<string, JsonValue> {
  return {
    [`usage.${nodeId}.input_tokens`]: totals.inputTokens,
    [`usage.${nodeId}.output_tokens`]: totals.outputTokens,
    [`usage.${nodeId}.total_tokens`]: totals.inputTokens + totals.outputTokens,
    ...(totals.costUsd === undefined ? {} : { [`cost.${nodeId}.usd`]: totals.costUsd }),
  };
}

/** A JSON copy of a tool input (agents send plain JSON; anything else becomes its string form). */
function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return String(value);
  }
}
