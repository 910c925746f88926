/**
 * `createCodexBackend`: the engine's `CodergenBackend` (spec §4.5) running each stage with OpenAI Codex
 * (`codex exec --json`), reading its JSONL events. Codex is spawned directly rather than through
 * `@openai/codex-sdk`, whose child process cannot be made the leader of its own process group, so a timeout could
 * not reach the commands Codex started.
 */
import { join } from 'node:path';
import { type CodergenRequest, type Outcome, systemClock } from '@attractor/engine';
import { strictSchemaVariant, withoutOptionalNulls } from '@attractor/graph';
import type { AgentCliBackendOptions } from './agent-cli-backend-options.js';
import { startAgentProcess } from './agent-process.js';
import { agentSandbox } from './agent-sandbox.js';
import { createAgentSessions } from './agent-sessions.js';
import type { AgentEnding, AgentStage } from './agent-stage.js';
import type { AgentCliBackend } from './claude-code-backend.js';
import { readJsonLines } from './read-json-lines.js';
import { writeStageFile } from './stage-files.js';
import { startCliAgentStage } from './start-cli-agent-stage.js';

/** The file in the stage directory that holds a stage's `output_schema` for `codex exec --output-schema`. */
const CODEX_OUTPUT_SCHEMA_FILE = 'output-schema.json';

/** Options of {@link createCodexBackend}. */
export interface CodexBackendOptions extends AgentCliBackendOptions {
  /**
   * Extra `--config key=value` overrides (TOML values), e.g. `model_provider="local"`. Codex also reads
   * `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`) from `env`. Default: none.
   */
  readonly configOverrides?: readonly string[];
}

/**
 * Creates the Codex backend (docs/architecture.md "Agent-CLI backends"). Each `run` is one
 * `codex exec --json` in the run's working directory (`--cd`, `--skip-git-repo-check`), with the stage
 * directory writable too (`--add-dir`):
 *
 * - the prompt (preamble, stage prompt, status.json note) goes to stdin and `prompt.md`;
 * - a stage's `output_schema` goes to `output-schema.json` in the stage directory and `--output-schema`: Codex asks
 *   the model for JSON of it (the Responses API's `text.format`, in OpenAI's strict mode, so the file holds the
 *   schema's strict variant: objects closed, optional fields nullable, their nulls left out of the answer again),
 *   and its final message, the JSON, goes to `response.md` for the codergen handler to check; a schema strict mode
 *   cannot express (a free-form object) goes in the prompt instead;
 * - `llm_model` or `defaultModel` is `--model`; an explicit `reasoning_effort` is `model_reasoning_effort`;
 * - `full` fidelity continues the Codex thread of the thread key (`codex exec resume <id>`);
 * - permissions: `edit` is `--sandbox workspace-write` with `approval_policy="never"`; `full` is
 *   `--dangerously-bypass-approvals-and-sandbox`;
 * - Codex's events become `agent.session.started` (the thread id), `agent.text` (agent messages),
 *   `agent.tool_call.*` (commands, file changes, MCP calls, web searches) and `agent.usage`, and lines of
 *   `transcript.jsonl`; the last agent message goes to `response.md`;
 * - Codex runs in its own process group, ended (SIGTERM, then SIGKILL) on timeout or cancel.
 *
 * Returns SUCCESS with `last_response` and usage, or FAIL with Codex's error (`turn.failed`, `error`, or its exit
 * status and stderr). A `status.json` the agent writes overrides it (codergen handler).
 *
 * @throws {AgentCliMissingError} when neither `executablePath`, `@openai/codex` nor `codex` on `PATH` is found.
 *
 * @example
 * const backend = createCodexBackend({ env: process.env, defaultModel: 'gpt-5.1-codex' });
 */
export function createCodexBackend(options: CodexBackendOptions = {}): AgentCliBackend {
  const clock = options.clock ?? systemClock;
  const sessions = createAgentSessions();
  const env = options.env ?? {};

  async function run(request: CodergenRequest): Promise<Outcome> {
    // Codex sends --output-schema in OpenAI's strict mode, which takes only closed objects whose properties are all
    // required: the schema goes as its strict variant (optional fields may be null), or, when strict mode cannot
    // say the same (a free-form object), in the prompt.
    const outputSchema = request.outputSchema;
    const strictSchema = outputSchema === undefined ? undefined : strictSchemaVariant(outputSchema);
    const { location, resume, stage } = await startCliAgentStage({
      request,
      agent: 'codex',
      sessions,
      env,
      executablePath: options.executablePath,
      clock,
      ...(outputSchema !== undefined && strictSchema === undefined ? { outputSchemaInPrompt: true } : {}),
    });
    const { node } = request;
    const model = node.llmModel ?? options.defaultModel;
    const schemaPath = join(request.stageDir, CODEX_OUTPUT_SCHEMA_FILE);
    if (strictSchema !== undefined) {
      await writeStageFile(request.stageDir, CODEX_OUTPUT_SCHEMA_FILE, JSON.stringify(strictSchema, null, 2));
    }
    const args = [
      ...location.args,
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--cd',
      request.workdir,
      '--add-dir',
      request.stageDir,
      ...(options.permissions === 'full'
        ? ['--dangerously-bypass-approvals-and-sandbox']
        : ['--sandbox', 'workspace-write', '--config', 'approval_policy="never"']),
      ...(model === undefined ? [] : ['--model', model]),
      ...(node.attributes.reasoning_effort === undefined
        ? []
        : ['--config', `model_reasoning_effort="${node.reasoningEffort}"`]),
      ...(options.configOverrides ?? []).flatMap((override) => ['--config', override]),
      ...(strictSchema === undefined ? [] : ['--output-schema', schemaPath]),
      ...(resume === undefined ? [] : ['resume', resume]),
      '-',
    ];
    const agentProcess = startAgentProcess({
      command: location.command,
      args,
      cwd: request.workdir,
      env: stage.env,
      abortSignal: request.abortSignal,
      clock,
      input: stage.prompt,
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      ...agentSandbox('codex', request, stage.env),
    });
    let ending: AgentEnding | undefined;
    let lastText = '';
    const startedTools = new Set<string>();
    for await (const line of readJsonLines(agentProcess.child.stdout)) {
      stage.transcript.write({ type: 'line', ...line });
      if (!('json' in line)) continue;
      const result = handleEvent(line.json, stage, model, startedTools);
      if (result?.text !== undefined) lastText = result.text;
      if (result?.ending !== undefined) ending = result.ending;
    }
    const exit = await agentProcess.finished;
    if (request.abortSignal.aborted) {
      await stage.transcript.flush().catch(() => undefined);
      throw request.abortSignal.reason;
    }
    if (stage.sessionId !== undefined) sessions.remember(request, stage.sessionId);
    const stderr = exit.stderr.trim().slice(-1000);
    if (ending === undefined && exit.exitCode !== 0) {
      ending = {
        kind: 'error',
        message: `Codex exited with ${exit.signal ?? `code ${exit.exitCode}`}${stderr === '' ? '' : `: ${stderr}`}`,
        retryable: false,
      };
    }
    if (ending === undefined && outputSchema !== undefined && strictSchema !== outputSchema) {
      ending = { kind: 'success', text: asAnswerTo(lastText, outputSchema) };
    }
    return stage.finish(ending ?? { kind: 'success', text: lastText });
  }

  return { run, sessionId: (threadKey) => sessions.get(threadKey) };
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Turns one Codex event into stage events; returns an agent message's text or the ending. */
function handleEvent(
  event: Readonly<Record<string, unknown>>,
  stage: AgentStage,
  model: string | undefined,
  started: Set<string>,
): { text?: string; ending?: AgentEnding } | undefined {
  switch (event.type) {
    case 'thread.started':
      stage.session(text(event.thread_id), model);
      return undefined;
    case 'turn.completed': {
      const usage = event.usage;
      stage.usage({
        inputTokens: Number(field(usage, 'input_tokens') ?? 0),
        outputTokens: Number(field(usage, 'output_tokens') ?? 0),
        ...(model === undefined ? {} : { model }),
      });
      return undefined;
    }
    case 'turn.failed':
      return {
        ending: {
          kind: 'error',
          message: `Codex failed: ${text(field(event.error, 'message'))}`,
          retryable: false,
        },
      };
    case 'error':
      return { ending: { kind: 'error', message: `Codex failed: ${text(event.message)}`, retryable: false } };
    case 'item.started':
    case 'item.completed':
      return handleItem(event.type === 'item.completed', event.item, stage, started);
    default:
      return undefined;
  }
}

function handleItem(
  completed: boolean,
  item: unknown,
  stage: AgentStage,
  started: Set<string>,
): { text?: string } | undefined {
  const id = text(field(item, 'id'));
  const type = field(item, 'type');
  if (type === 'agent_message' && completed) {
    const message = text(field(item, 'text'));
    stage.text(message);
    return { text: message };
  }
  if (type === 'error' && completed) {
    stage.log('warn', `Codex: ${text(field(item, 'message'))}`);
    return undefined;
  }
  const tool = toolOf(type, item);
  if (tool === undefined) return undefined;
  if (!started.has(id)) {
    started.add(id);
    stage.toolStarted(id, tool.name, tool.input);
  }
  if (completed) stage.toolCompleted(id, tool.output(), tool.isError());
  return undefined;
}

function toolOf(
  type: unknown,
  item: unknown,
): { name: string; input: unknown; output: () => string; isError: () => boolean } | undefined {
  const status = field(item, 'status');
  switch (type) {
    case 'command_execution':
      return {
        name: 'shell',
        input: { command: field(item, 'command') },
        output: () => text(field(item, 'aggregated_output')),
        isError: () => status === 'failed' || (field(item, 'exit_code') ?? 0) !== 0,
      };
    case 'file_change': {
      const changes = field(item, 'changes');
      return {
        name: 'apply_patch',
        input: { changes },
        output: () =>
          (Array.isArray(changes) ? changes : [])
            .map((change) => `${text(field(change, 'kind'))} ${text(field(change, 'path'))}`)
            .join('\n'),
        isError: () => status === 'failed',
      };
    }
    case 'mcp_tool_call':
      return {
        name: `${text(field(item, 'server'))}.${text(field(item, 'tool'))}`,
        input: field(item, 'arguments'),
        output: () => JSON.stringify(field(item, 'result') ?? field(field(item, 'error'), 'message') ?? ''),
        isError: () => status === 'failed',
      };
    case 'web_search':
      return {
        name: 'web_search',
        input: { query: field(item, 'query') },
        output: () => '',
        isError: () => false,
      };
    default:
      return undefined;
  }
}

/**
 * The final message of a stage asked for the strict variant of `schema`, as an answer to `schema` itself: the nulls
 * given for optional fields left out ({@link withoutOptionalNulls}). Text that is not JSON stays as it is, for the
 * codergen handler to report.
 */
function asAnswerTo(text: string, schema: Readonly<Record<string, unknown>>): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(withoutOptionalNulls(value, schema));
}
