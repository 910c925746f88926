/**
 * `createClaudeCodeBackend`: the engine's `CodergenBackend` (spec §4.5) running each stage with Claude Code through
 * the official Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`), which drives the `claude` CLI over its
 * stream-JSON protocol. The SDK is loaded when the first stage runs.
 */
import {
  type Clock,
  type CodergenBackend,
  type CodergenRequest,
  type Outcome,
  systemClock,
} from '@attractor/engine';
import type { AgentCliBackendOptions } from './agent-cli-backend-options.js';
import { AGENT_PACKAGES } from './agent-name.js';
import { type AgentProcess, startAgentProcess } from './agent-process.js';
import { agentSandbox } from './agent-sandbox.js';
import { createAgentSessions } from './agent-sessions.js';
import { type AgentEnding, startAgentStage } from './agent-stage.js';
import { AgentCliMissingError } from './errors/agent-cli-missing-error.js';

type ClaudeAgentSdk = typeof import('@anthropic-ai/claude-agent-sdk');
type SdkMessage = import('@anthropic-ai/claude-agent-sdk').SDKMessage;

/** Options of {@link createClaudeCodeBackend}. */
export interface ClaudeCodeBackendOptions extends AgentCliBackendOptions {
  /** Turn limit of one stage (Claude Code's `--max-turns`). Default: Claude Code's own (none). */
  readonly maxTurns?: number;
  /** Tools Claude Code may use without asking, in its rule syntax (`Bash(npm test:*)`). Default: none extra. */
  readonly allowedTools?: readonly string[];
}

/** A backend that runs stages with a coding-agent CLI, with access to the sessions it keeps. */
export interface AgentCliBackend extends CodergenBackend {
  /** The agent's session id kept for a thread key (`full` fidelity) or node id, if any. For inspection and tests. */
  sessionId(threadKey: string): string | undefined;
}

/** Claude Code reports HTTP statuses of failed API calls; these are worth another attempt. */
function isRetryableStatus(status: number | null | undefined): boolean {
  return status === 429 || status === 529 || (typeof status === 'number' && status >= 500);
}

let sdkPromise: Promise<ClaudeAgentSdk> | undefined;
function loadSdk(): Promise<ClaudeAgentSdk> {
  sdkPromise ??= import('@anthropic-ai/claude-agent-sdk').catch((error: unknown) => {
    sdkPromise = undefined;
    throw new AgentCliMissingError({
      agent: 'claude-code',
      packageName: AGENT_PACKAGES['claude-code'],
      cause: error,
    });
  });
  return sdkPromise;
}

/**
 * Creates the Claude Code backend (docs/architecture.md "Agent-CLI backends"). Each `run` is one Claude Code
 * session (or the continuation of one) in the run's working directory:
 *
 * - the prompt is the stage prompt with the preamble (left out when the stage continues a session) and a note on
 *   `$ATTRACTOR_STAGE_DIR/status.json`; it goes to `prompt.md`;
 * - a stage's `output_schema` is the SDK's `outputFormat` (`json_schema`): Claude Code has the model answer through
 *   its structured-output tool, and the result's `structured_output`, as JSON, is the final text the codergen handler
 *   checks (Claude Code giving up on it after its own retries is a retryable FAIL);
 * - `llm_model` (after the stylesheet) or `defaultModel` is the model; an explicit `reasoning_effort` is Claude
 *   Code's `effort`;
 * - `full` fidelity resumes the Claude Code session of the thread key; other modes start a new session;
 * - permissions: `edit` is `permissionMode: 'acceptEdits'`, `full` is `bypassPermissions`;
 * - the agent's messages become `agent.session.started`, `agent.text`, `agent.tool_call.*` and `agent.usage`
 *   (with `total_cost_usd`) events and lines of `transcript.jsonl`; the final text goes to `response.md`;
 * - Claude Code runs in its own process group, ended (SIGTERM, then SIGKILL) on timeout or cancel.
 *
 * Returns SUCCESS with `last_response`, usage and cost in the context updates, or FAIL with Claude Code's error
 * (retryable for HTTP 429/5xx from the API). A `status.json` the agent writes overrides it (codergen handler).
 *
 * @throws {AgentCliMissingError} when `@anthropic-ai/claude-agent-sdk` is not installed.
 *
 * @example
 * const backend = createClaudeCodeBackend({ env: process.env, defaultModel: 'claude-sonnet-4-5' });
 * const result = await runPipeline({ graph, registry, logsRoot: '.attractor/runs/demo', backend });
 */
export function createClaudeCodeBackend(options: ClaudeCodeBackendOptions = {}): AgentCliBackend {
  const clock = options.clock ?? systemClock;
  const sessions = createAgentSessions();

  async function run(request: CodergenRequest): Promise<Outcome> {
    request.abortSignal.throwIfAborted();
    const sdk = await loadSdk();
    const resume = sessions.sessionToResume(request);
    const stage = await startAgentStage({
      request,
      agent: 'claude-code',
      resumed: resume !== undefined,
      env: options.env ?? {},
      clock,
    });
    const { node } = request;
    const model = node.llmModel ?? options.defaultModel;
    const full = options.permissions === 'full';
    const abortController = new AbortController();
    const onAbort = () => abortController.abort(request.abortSignal.reason);
    request.abortSignal.addEventListener('abort', onAbort, { once: true });
    const processes: AgentProcess[] = [];
    let stderr = '';
    const query = sdk.query({
      prompt: stage.prompt,
      options: {
        cwd: request.workdir,
        // The agent may write $ATTRACTOR_STAGE_DIR/status.json even when the run directory is outside the workdir.
        additionalDirectories: [request.stageDir],
        env: stage.env,
        abortController,
        permissionMode: full ? 'bypassPermissions' : 'acceptEdits',
        ...(full ? { allowDangerouslySkipPermissions: true } : {}),
        ...(model === undefined ? {} : { model }),
        ...(request.outputSchema === undefined
          ? {}
          : { outputFormat: { type: 'json_schema', schema: { ...request.outputSchema } } }),
        ...(node.attributes.reasoning_effort === undefined ? {} : { effort: node.reasoningEffort }),
        ...(resume === undefined ? {} : { resume }),
        ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
        ...(options.allowedTools === undefined ? {} : { allowedTools: [...options.allowedTools] }),
        ...(options.executablePath === undefined
          ? {}
          : { pathToClaudeCodeExecutable: options.executablePath }),
        spawnClaudeCodeProcess: (spawn) => {
          const agentProcess = startAgentProcess({
            command: spawn.command,
            args: spawn.args,
            cwd: spawn.cwd ?? request.workdir,
            env: spawn.env,
            abortSignal: request.abortSignal,
            clock,
            ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
            ...agentSandbox('claude-code', request, spawn.env),
          });
          processes.push(agentProcess);
          agentProcess.child.stderr.on('data', (chunk: string) => {
            stderr = (stderr + chunk).slice(-4000);
          });
          return agentProcess.child;
        },
      },
    });

    let ending: AgentEnding | undefined;
    let completed = false;
    try {
      for await (const message of query) {
        stage.transcript.write({ type: 'message', message });
        ending = handleMessage(message, stage) ?? ending;
      }
      completed = true;
    } catch (error) {
      // After an error result the SDK also throws ("Claude Code returned an error result"): the result says more
      // (its subtype decides whether another attempt may help), so it stays the ending.
      if (!request.abortSignal.aborted && ending?.kind !== 'error') {
        const detail = error instanceof Error ? error.message : String(error);
        ending = {
          kind: 'error',
          message: `${detail.startsWith('Claude Code') ? '' : 'Claude Code failed: '}${detail}${stderr.trim() === '' ? '' : ` (stderr: ${stderr.trim().slice(-1000)})`}`,
          retryable: false,
        };
      }
    } finally {
      request.abortSignal.removeEventListener('abort', onAbort);
      if (!completed) query.close();
      await Promise.all(processes.map((agentProcess) => settleProcess(agentProcess, clock)));
    }
    if (request.abortSignal.aborted) {
      await stage.transcript.flush().catch(() => undefined);
      throw request.abortSignal.reason;
    }
    if (stage.sessionId !== undefined) sessions.remember(request, stage.sessionId);
    return stage.finish(
      ending ?? {
        kind: 'error',
        message: `Claude Code ended without a result${stderr.trim() === '' ? '' : `: ${stderr.trim().slice(-1000)}`}`,
        retryable: false,
      },
    );
  }

  return { run, sessionId: (threadKey) => sessions.get(threadKey) };
}

/** Gives the agent a moment to exit on its own after its last message (it saves the session), then ends its group. */
async function settleProcess(agentProcess: AgentProcess, clock: Clock): Promise<void> {
  const timer = new AbortController();
  const exited = await Promise.race([
    agentProcess.finished.then(() => true),
    clock.sleep(10_000, timer.signal).then(
      () => false,
      () => false,
    ),
  ]);
  timer.abort();
  if (!exited) agentProcess.stop();
  await agentProcess.finished;
}

/** Turns one SDK message into stage events; returns the ending when the message is the result. */
function handleMessage(
  message: SdkMessage,
  stage: Awaited<ReturnType<typeof startAgentStage>>,
): AgentEnding | undefined {
  switch (message.type) {
    case 'system':
      if (message.subtype === 'init') stage.session(message.session_id, message.model);
      return undefined;
    case 'assistant': {
      stage.session(message.session_id);
      // A subagent's text is its own business; its tool calls still show what happens in the workdir.
      const topLevel = message.parent_tool_use_id === null;
      for (const block of message.message.content) {
        if (block.type === 'text' && topLevel) stage.text(block.text);
        if (block.type === 'tool_use') stage.toolStarted(block.id, block.name, block.input);
      }
      return undefined;
    }
    case 'user': {
      const content = message.message.content;
      if (typeof content === 'string') return undefined;
      for (const block of content) {
        if (block.type !== 'tool_result') continue;
        stage.toolCompleted(block.tool_use_id, toolResultText(block.content), block.is_error === true);
      }
      return undefined;
    }
    case 'result': {
      const usage = message.usage;
      stage.usage({
        inputTokens:
          usage.input_tokens +
          (usage.cache_read_input_tokens ?? 0) +
          (usage.cache_creation_input_tokens ?? 0),
        outputTokens: usage.output_tokens,
        costUsd: message.total_cost_usd,
        ...(Object.keys(message.modelUsage)[0] === undefined
          ? {}
          : { model: Object.keys(message.modelUsage)[0] }),
      });
      if (message.subtype === 'success' && !message.is_error) {
        // With an outputFormat, the model's answer is the structured-output tool's input, not the result text.
        return {
          kind: 'success',
          text:
            message.structured_output === undefined
              ? message.result
              : JSON.stringify(message.structured_output),
        };
      }
      if (message.subtype === 'success') {
        return {
          kind: 'error',
          message: `Claude Code reported an error: ${message.result}`,
          retryable: isRetryableStatus(message.api_error_status),
          text: message.result,
        };
      }
      const errors = message.errors.filter((error) => error.trim() !== '');
      return {
        kind: 'error',
        message: `Claude Code stopped (${message.subtype})${errors.length === 0 ? '' : `: ${errors.join('; ')}`}`,
        // The model did not manage JSON of the output_schema this time; another attempt may (README "Typed data").
        retryable: message.subtype === 'error_max_structured_output_retries',
      };
    }
    default:
      return undefined;
  }
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string'
          ? part.text
          : '',
      )
      .join('');
  }
  return content === undefined ? '' : JSON.stringify(content);
}
