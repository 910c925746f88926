/**
 * `createAiSdkBackend`: the engine's `CodergenBackend` (spec §4.5) as a coding agent on the AI SDK's multi-step
 * tool loop (coding-agent-loop-spec §2). One `streamText` call per stage attempt, with the workdir-confined
 * tools, steering between steps, the turn limit, fidelity-dependent history, transient-error retries, a
 * transcript, and usage and cost accounting.
 */
import { dirname } from 'node:path';
import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import {
  type Clock,
  type CodergenBackend,
  type CodergenRequest,
  type Outcome,
  redactSecrets,
  systemClock,
} from '@attractor/engine';
import { mcpServerNames, nodeAttribute, strictSchemaProblem } from '@attractor/graph';
import { type ModelMessage, wrapLanguageModel } from 'ai';
import {
  createAgentTools,
  DEFAULT_COMMAND_TIMEOUT_MS,
  MAX_COMMAND_TIMEOUT_MS,
  type ReportedOutcome,
} from './agent-tools.js';
import { aiSdkTelemetry } from './ai-sdk-telemetry.js';
import { buildSystemPrompt } from './build-system-prompt.js';
import { BUILT_IN_PROVIDERS, providerSettingsFromEnv } from './built-in-providers.js';
import { filterEnvironment } from './filter-environment.js';
import { toModelCallError } from './map-model-error.js';
import { createMcpConnections, type McpServerConfig, mcpSecretValues } from './mcp-servers.js';
import { costUsd, DEFAULT_PRICES, type PriceTable } from './price-table.js';
import { reasoningProviderOptions } from './reasoning-provider-options.js';
import {
  createModelRegistry,
  isOpenAIReasoningModel,
  type ModelProvider,
  resolveModel,
} from './resolve-model.js';
import { formatPrompt, writePromptFile, writeResponseFile } from './response-file.js';
import { type AgentLoopOptions, type AgentLoopResult, runAgentLoop } from './run-agent-loop.js';
import { selectTools } from './select-tools.js';
import { createSessionStore } from './session-store.js';
import { buildStageOutcome } from './stage-outcome.js';
import { resolveToolHooks } from './tool-hooks.js';
import { createTranscriptWriter } from './transcript-file.js';
import {
  createTransientRetryMiddleware,
  DEFAULT_TRANSIENT_RETRY_POLICY,
  type TransientRetryPolicy,
} from './transient-retry.js';
import type { ToolOutputLimit } from './truncate-output.js';
import { readProjectInstructions } from './workdir-files.js';

/** Default turn limit: model calls per stage attempt. */
export const DEFAULT_MAX_TURNS = 50;

/** Options of {@link createAiSdkBackend}. */
export interface AiSdkBackendOptions {
  /**
   * More AI SDK providers by name (`mistral: createMistral({ apiKey })`, any provider instance or a function from
   * model id to model), used for nodes whose `llm_provider` has that name. They join the built-in `openai`,
   * `anthropic`, `google` and `gemini` in the provider registry, and replace a built-in one of the same name.
   */
  readonly providers?: Readonly<Record<string, ModelProvider>>;
  /** Model for nodes that set no `llm_model` (the CLI's `--model`). Default: none (such a node fails clearly). */
  readonly defaultModel?: string;
  /**
   * Provider for model names that imply none (not `gpt-*`, `o3`, `claude-*`, `gemini-*`, ...), e.g. `qwen2.5-coder`
   * on a local server. Default: `openai` (the built-in provider, which speaks to any OpenAI-compatible server).
   */
  readonly defaultProvider?: string;
  /**
   * Base URL of an OpenAI-compatible server (llama.cpp, vLLM, Ollama: `http://localhost:11434/v1`). With it the
   * built-in provider uses Chat Completions; without it, OpenAI's Responses API at api.openai.com. The CLI fills it
   * from `--base-url` / `OPENAI_BASE_URL`.
   */
  readonly baseURL?: string;
  /**
   * Which OpenAI API the built-in provider speaks. Default: `chat` (Chat Completions) with a custom `baseURL`,
   * `responses` (the Responses API) against OpenAI itself. Set `responses` for a compatible server that offers it.
   */
  readonly openaiApi?: 'chat' | 'responses';
  /** API key of the built-in OpenAI provider. Default: `OPENAI_API_KEY` of `env` (else an empty key). */
  readonly apiKey?: string;
  /**
   * Prices in USD per million tokens by model id, over {@link DEFAULT_PRICES} (the CLI's `--prices file.json`).
   * A model without a price costs `"unknown"`.
   */
  readonly prices?: PriceTable;
  /** How transient provider errors (429, 5xx, 529, network) are retried per model call. Default: 6 attempts, 5 minutes. */
  readonly retry?: Partial<TransientRetryPolicy>;
  /** Jitter source in [0, 1) for retry backoff. Default: `Math.random`. */
  readonly random?: () => number;
  /** Stream replies with `streamText` (text deltas become `agent.text` events). Default: true. */
  readonly streaming?: boolean;
  /**
   * Working directory the tools are confined to. Default: the run's working directory (`request.workdir`).
   */
  readonly workdir?: string;
  /** Turn limit: model calls per stage attempt (coding-agent-loop-spec §2.8). Default: 50. */
  readonly maxTurns?: number;
  /**
   * The models' context window, in tokens. When set, a step whose input uses more than 80% of it emits a
   * `stage.log` warning (coding-agent-loop-spec §5.5; no compaction). Default: no check.
   */
  readonly contextWindowTokens?: number;
  /** Default shell timeout, in milliseconds (coding-agent-loop-spec §5.4). Default: 10000. */
  readonly commandTimeoutMs?: number;
  /** Largest shell timeout the model may ask for, in milliseconds. Default: 600000. */
  readonly maxCommandTimeoutMs?: number;
  /**
   * The environment. The built-in providers read their keys and base URLs from it (`OPENAI_API_KEY`,
   * `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `GOOGLE_GENERATIVE_AI_API_KEY` or
   * `GEMINI_API_KEY`, `GOOGLE_GENERATIVE_AI_BASE_URL`). Shell commands and tool hooks get it filtered: every
   * variable whose name contains `KEY`, `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD` or `CREDENTIAL` is removed. Library
   * code never reads `process.env`; pass it here (the CLI does). Default: empty (bash then uses its built-in `PATH`).
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Per-tool output limits, merged over `DEFAULT_TOOL_OUTPUT_LIMITS` (coding-agent-loop-spec §5.2). */
  readonly toolOutputLimits?: Readonly<Record<string, ToolOutputLimit>>;
  /** Extra system-prompt text, appended last (coding-agent-loop-spec §6.1 layer 5). */
  readonly instructions?: string;
  /** Time source for timeouts, durations and transcript timestamps. Default: the system clock. */
  readonly clock?: Clock;
  /**
   * MCP servers by name (README "MCP"): a stage whose `mcp_servers` attribute names some gets their tools, as
   * `<server>__<tool>`, beside the built-in ones. Each server starts when a stage of a run first needs it and stops
   * when the run ends (`endRun`) or the backend closes (`close`). The values of their `env` and `headers` are masked
   * like API keys. Default: none (a stage naming a server fails with a `BackendConfigurationError`).
   */
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
}

/** The backend, with access to the `full`-fidelity sessions it keeps. */
export interface AiSdkBackend extends CodergenBackend {
  /**
   * The message history kept for a thread key of a run (empty when none), oldest first. `run` is the run's logs
   * root (the parent of its stage directories). For inspection and tests.
   */
  history(threadKey: string, run: string): readonly ModelMessage[];
  /** Stops the MCP servers of the run in `logsRoot` (and of its branches and child runs). Never throws. */
  endRun(run: { readonly logsRoot: string }): Promise<void>;
  /** Stops every MCP server the backend started, of every run. Never throws. */
  close(): Promise<void>;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
}

/**
 * Creates the AI SDK codergen backend (docs/architecture.md "The AI-SDK backend"). Each `run` is one agent
 * session for a stage attempt:
 *
 * - the model comes from the node's `llm_model` / `llm_provider` (after the stylesheet) or `defaultModel`;
 *   `reasoning_effort` maps to the provider's option (the spec default `high` goes to OpenAI's own reasoning models;
 *   other models and endpoints get it only when the node sets it);
 * - the tools are `read_file`, `write_file`, `edit_file`, `shell`, `grep`, `glob` (coding-agent-loop-spec §3.3)
 *   confined to the working directory, narrowed by the node's `tools` attribute (`none` for a text-only stage),
 *   plus `report_outcome`, with `tool_hooks.pre`/`.post` (spec §9.7) around each call;
 * - the loop stops at a text-only reply, a `report_outcome` call or `maxTurns`; steering messages
 *   (`request.takeSteering()`) and loop-detection warnings (coding-agent-loop-spec §2.10) are added as user
 *   messages before each model call;
 * - `full` fidelity continues the history of `request.threadKey`; other modes start fresh with `request.preamble`;
 * - every step and tool call goes to `{stageDir}/transcript.jsonl` and to `request.emit` (`agent.*` events);
 * - the final reply goes to `{stageDir}/response.md`.
 *
 * - transient provider errors (429, 500-504, 529, network) are retried per model call with exponential backoff
 *   and jitter, honouring `retry-after(-ms)`; each wait is a `stage.custom` event `llm.retry` and a `stage.log`
 *   warning. These retries never use the node's `max_retries`;
 * - `{stageDir}/prompt.md` holds the whole prompt sent; the final reply goes to `{stageDir}/response.md`.
 *
 * Returns an Outcome: the `report_outcome` values, or SUCCESS with the reply; either way with `last_response`,
 * the stage's token usage and cost in `contextUpdates` (`usage.<node>.*`, see `usageContextUpdates`; the run's totals
 * are the engine's, from the `agent.usage` event of each call). Hitting the turn limit is a retryable FAIL.
 * Before each model call it asks `request.usage.checkBudget()`, so a run that spent its budget makes no further call.
 *
 * @throws {BackendConfigurationError} (not retryable) when the node has no model, its provider is unknown,
 *   or its `tools` attribute names an unknown tool.
 * @throws {BudgetExceededError} (of `@attractor/engine`, not retryable) before a model call once the run spent its
 *   budget (`max_budget_usd`, `max_tokens`).
 * @throws {ModelCallError} when the provider call fails: `retryable` for 429, 5xx, network errors and timeouts
 *   that outlasted the backend's own retries; terminal for 400/401/403/404 with a message naming the provider and
 *   the variable to check. The AI SDK's own retries are off (`maxRetries: 0`).
 *
 * @example
 * const backend = createAiSdkBackend({
 *   env: process.env, // ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...
 *   defaultModel: 'claude-sonnet-4-6',
 * });
 * const result = await runPipeline({ graph, registry, logsRoot: '.attractor/runs/demo', backend });
 */
export function createAiSdkBackend(options: AiSdkBackendOptions = {}): AiSdkBackend {
  const clock = options.clock ?? systemClock;
  const maxTurns = Math.max(1, options.maxTurns ?? DEFAULT_MAX_TURNS);
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const maxCommandTimeoutMs = Math.max(
    commandTimeoutMs,
    options.maxCommandTimeoutMs ?? MAX_COMMAND_TIMEOUT_MS,
  );
  const env = filterEnvironment(options.env ?? {});
  const registry = createModelRegistry({
    ...(options.providers === undefined ? {} : { providers: options.providers }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.openaiApi === undefined ? {} : { openaiApi: options.openaiApi }),
  });
  const secretValues = [
    ...(options.apiKey === undefined || options.apiKey === '' ? [] : [options.apiKey]),
    ...(['openai', 'anthropic', 'google'] as const)
      .map((name) => providerSettingsFromEnv(name, options.env ?? {}).apiKey)
      .filter((key): key is string => key !== undefined),
    ...mcpSecretValues(options.mcpServers ?? {}),
  ];
  const mcp = createMcpConnections({ servers: options.mcpServers ?? {}, env });
  const prices: PriceTable = { ...DEFAULT_PRICES, ...options.prices };
  const retryPolicy: TransientRetryPolicy = { ...DEFAULT_TRANSIENT_RETRY_POLICY, ...options.retry };
  const random = options.random ?? Math.random;
  const sessions = createSessionStore<readonly ModelMessage[]>();

  async function run(request: CodergenRequest): Promise<Outcome> {
    const { node } = request;
    request.abortSignal.throwIfAborted();
    const resolved = resolveModel({
      node,
      registry,
      ...(options.defaultModel === undefined ? {} : { defaultModel: options.defaultModel }),
      ...(options.defaultProvider === undefined ? {} : { defaultProvider: options.defaultProvider }),
    });
    const runKey = dirname(request.stageDir);
    // `gemini` is the Google provider under another name: it reads GEMINI.md and takes Google's options.
    const canonicalProvider =
      resolved.builtIn === undefined ? resolved.provider : BUILT_IN_PROVIDERS[resolved.builtIn].canonical;
    const toolNames = selectTools(node);
    const reportOutcome = node.attributes.tools?.value.trim().toLowerCase() !== 'none';
    const workdir = options.workdir ?? request.workdir;
    const transcript = createTranscriptWriter({
      stageDir: request.stageDir,
      clock,
      secretValues,
      secrets: request.secrets,
    });
    // The backend's own keys and token shapes, then whatever the run masks (`--secret`, secret-named variables).
    const mask = (text: string): string => {
      const redacted = redactSecrets(text, secretValues);
      return request.secrets === undefined ? redacted : request.secrets.maskText(redacted);
    };
    const explicitEffort = node.attributes.reasoning_effort !== undefined;
    // The spec's default effort (high) goes only to OpenAI's own reasoning models; elsewhere only when set.
    const sendEffort =
      explicitEffort ||
      (resolved.builtIn === 'openai' &&
        resolved.baseURL === undefined &&
        isOpenAIReasoningModel(resolved.modelId));
    const effortOptions: SharedV4ProviderOptions | undefined = sendEffort
      ? reasoningProviderOptions(canonicalProvider, node.reasoningEffort)
      : undefined;
    // OpenAI's strict structured outputs (the OpenAI provider's default) refuse a schema with optional or extra
    // fields, as the compact `output_schema` form has: such a schema is asked for in non-strict mode, and the
    // codergen handler checks the reply against it either way.
    const nonStrict =
      canonicalProvider === 'openai' &&
      request.outputSchema !== undefined &&
      strictSchemaProblem(request.outputSchema) !== undefined;
    const providerOptions: SharedV4ProviderOptions | undefined = nonStrict
      ? { ...effortOptions, openai: { ...effortOptions?.openai, strictJsonSchema: false } }
      : effortOptions;

    // A text-only stage (`tools="none"`) gets no tool at all: its MCP servers (say, from a stylesheet) are not started.
    const mcpNames = reportOutcome ? mcpServerNames(node) : [];
    const mcpTools =
      mcpNames.length === 0
        ? undefined
        : await mcp.tools({ runKey, names: mcpNames, nodeId: node.id, cwd: workdir });
    let reported: ReportedOutcome | undefined;
    const tools = createAgentTools({
      toolNames,
      reportOutcome,
      nodeId: node.id,
      stageDir: request.stageDir,
      workdir,
      env,
      commandTimeoutMs,
      maxCommandTimeoutMs,
      outputLimits: options.toolOutputLimits ?? {},
      hooks: resolveToolHooks(node, request.graph),
      clock,
      // Tool output can echo an MCP server's env or headers: events carry it masked like the transcript.
      emit: (event) => request.emit(redactSecrets(event, secretValues)),
      transcript,
      onReport: (value) => {
        reported = value;
      },
      ...(request.sandbox === undefined
        ? {}
        : {
            sandbox: {
              sandbox: request.sandbox,
              writable: [request.stageDir],
              network: nodeAttribute(node, 'sandbox_network') === true,
            },
          }),
      ...(mcpTools === undefined ? {} : { mcpTools }),
    });

    const system = buildSystemPrompt({
      nodeId: node.id,
      nodeLabel: node.label,
      goal: request.graph.settings.goal,
      workdir,
      platform: process.platform,
      date: new Date(clock.now()).toISOString().slice(0, 10),
      modelId: resolved.modelId,
      toolNames,
      reportOutcome,
      projectInstructions:
        toolNames.length > 0 ? await readProjectInstructions(workdir, canonicalProvider) : '',
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    });

    const full = request.fidelity === 'full';
    const earlier = full ? (sessions.get(runKey, request.threadKey) ?? []) : [];
    const userText =
      full || request.preamble.trim() === '' ? request.prompt : `${request.preamble}\n\n${request.prompt}`;
    const initial: ModelMessage[] = [...earlier, { role: 'user', content: userText }];
    // Written while the model works; awaited before the stage ends.
    const promptWritten = writePromptFile(request.stageDir, mask(formatPrompt(system, initial)));
    promptWritten.catch(() => {});
    void transcript.write({
      type: 'stage_started',
      nodeId: node.id,
      provider: resolved.provider,
      model: resolved.modelId,
      fidelity: request.fidelity,
      threadKey: request.threadKey,
      continuedMessages: earlier.length,
      tools: [...toolNames, ...(reportOutcome ? ['report_outcome'] : [])],
      system,
      prompt: userText,
    });

    let loop: AgentLoopResult;
    try {
      const model = wrapLanguageModel({
        model: resolved.model,
        middleware: createTransientRetryMiddleware({
          policy: retryPolicy,
          clock,
          random,
          onWait: (wait) => {
            const status =
              wait.failure.statusCode === undefined ? 'network error' : `HTTP ${wait.failure.statusCode}`;
            const data = {
              provider: resolved.provider,
              model: resolved.modelId,
              attempt: wait.attempt,
              maxAttempts: wait.maxAttempts,
              delayMs: wait.delayMs,
              fromRetryAfter: wait.fromRetryAfter,
              statusCode: wait.failure.statusCode ?? null,
              message: mask(wait.failure.message),
            };
            request.emit({ type: 'stage.custom', name: 'llm.retry', data });
            request.emit({
              type: 'stage.log',
              level: 'warn',
              message: `${resolved.provider} ${status} (${data.message.slice(0, 120)}); retrying in ${formatSeconds(wait.delayMs)}${wait.fromRetryAfter ? ' as retry-after asks' : ''} (attempt ${wait.attempt + 1} of ${wait.maxAttempts})`,
            });
            void transcript.write({ type: 'retry_wait', ...data });
          },
        }),
      });
      const traced =
        request.telemetry === undefined ? undefined : await aiSdkTelemetry(request.telemetry, node.id);
      const loopOptions: AgentLoopOptions = {
        model,
        cost: (usage) => costUsd(prices, resolved.modelId, usage),
        ...(options.streaming === undefined ? {} : { streaming: options.streaming }),
        modelId: resolved.modelId,
        system,
        initial,
        tools,
        maxTurns,
        ...(options.contextWindowTokens === undefined
          ? {}
          : { contextWindowTokens: options.contextWindowTokens }),
        ...(providerOptions === undefined ? {} : { providerOptions }),
        abortSignal: request.abortSignal,
        takeSteering: request.takeSteering,
        ...(request.usage === undefined ? {} : { checkBudget: request.usage.checkBudget }),
        emit: request.emit,
        transcript,
        ...(traced === undefined ? {} : { telemetry: traced.settings }),
        ...(request.outputSchema === undefined ? {} : { outputSchema: request.outputSchema }),
      };
      // The model-call spans nest under the stage span (the integration starts them from the active context).
      loop = await (traced === undefined
        ? runAgentLoop(loopOptions)
        : traced.run(() => runAgentLoop(loopOptions)));
    } catch (error) {
      const mapped = toModelCallError(error, resolved);
      const failure = mapped ?? error;
      await transcript.write({
        type: 'error',
        message: failure instanceof Error ? failure.message : String(failure),
        ...(mapped === undefined
          ? {}
          : { retryable: mapped.retryable, statusCode: mapped.statusCode ?? null }),
      });
      await promptWritten;
      // The message reaches the run once, as the stage's failure reason (no `stage.log` of it besides).
      if (mapped === undefined) throw error;
      throw mapped;
    }

    // A tool may have finished after the abort (e.g. a killed shell command): the attempt is over either way.
    request.abortSignal.throwIfAborted();
    // A `full` stage continues its thread. Every session is also kept under the node id, which is the thread key
    // a following `full` stage gets from the "previous node" fallback of spec §5.4.
    if (full) sessions.set(runKey, request.threadKey, loop.history);
    sessions.set(runKey, node.id, loop.history);
    const responseWritten = writeResponseFile(request.stageDir, loop.text);
    if (loop.turnLimitReached) {
      request.emit({
        type: 'stage.log',
        level: 'warn',
        message: `turn limit of ${maxTurns} model calls reached`,
      });
    }
    const stageCost = costUsd(prices, resolved.modelId, loop.usage);
    const outcome = buildStageOutcome({
      nodeId: node.id,
      costUsd: stageCost,
      text: loop.text,
      ...(reported === undefined ? {} : { reported }),
      ...(loop.turnLimitReached ? { turnLimitReached: maxTurns } : {}),
      usage: loop.usage,
    });
    const finished = transcript.write({
      type: 'stage_finished',
      status: outcome.status,
      steps: loop.steps,
      usage: loop.usage,
      costUsd: stageCost,
      ...(loop.turnLimitReached ? { turnLimit: maxTurns } : {}),
    });
    await Promise.all([promptWritten, responseWritten, finished]);
    return outcome;
  }

  return {
    run,
    history: (threadKey, run) => sessions.get(run, threadKey) ?? [],
    endRun: ({ logsRoot }) => mcp.closeRun(logsRoot),
    close: () => mcp.close(),
  };
}
