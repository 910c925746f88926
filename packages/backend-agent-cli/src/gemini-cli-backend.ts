/**
 * `createGeminiCliBackend`: the engine's `CodergenBackend` (spec §4.5) running each stage with Google's Gemini CLI
 * in headless mode (`gemini -p ... --output-format stream-json`), reading its JSONL events. Google publishes no
 * SDK that drives the CLI, so the CLI is spawned directly.
 */
import { type CodergenRequest, type Outcome, systemClock } from '@attractor/engine';
import type { AgentCliBackendOptions } from './agent-cli-backend-options.js';
import { startAgentProcess } from './agent-process.js';
import { agentSandbox } from './agent-sandbox.js';
import { createAgentSessions } from './agent-sessions.js';
import type { AgentEnding, AgentStage } from './agent-stage.js';
import type { AgentCliBackend } from './claude-code-backend.js';
import { readJsonLines } from './read-json-lines.js';
import { startCliAgentStage } from './start-cli-agent-stage.js';

/** Options of {@link createGeminiCliBackend}. */
export type GeminiCliBackendOptions = AgentCliBackendOptions;

/**
 * Creates the Gemini CLI backend (docs/architecture.md "Agent-CLI backends"). Each `run` is one headless
 * `gemini` session in the run's working directory (`--skip-trust`), with the stage directory included
 * (`--include-directories`):
 *
 * - the prompt (preamble, stage prompt, status.json note) goes to stdin and `prompt.md`; a stage with an
 *   `output_schema` also gets the schema and "answer with JSON only" there (Gemini CLI has no schema option), and its
 *   final message is the JSON the codergen handler checks;
 * - `llm_model` or `defaultModel` is `--model`; Gemini CLI has no reasoning-effort flag, so `reasoning_effort` is
 *   not passed (a `stage.log` line says so when a node sets it);
 * - `full` fidelity resumes the Gemini session of the thread key (`--resume <session id>`);
 * - permissions: `edit` is `--approval-mode auto_edit`, `full` is `--approval-mode yolo`;
 * - the stream's `init`, `message`, `tool_use`, `tool_result` and `result` lines become `agent.session.started`,
 *   `agent.text`, `agent.tool_call.*` and `agent.usage` events and lines of `transcript.jsonl`; the assistant's
 *   last message goes to `response.md`;
 * - the CLI runs in its own process group, ended (SIGTERM, then SIGKILL) on timeout or cancel.
 *
 * Returns SUCCESS with `last_response` and usage, or FAIL with the CLI's error. A `status.json` the agent writes
 * overrides it (codergen handler).
 *
 * @throws {AgentCliMissingError} when neither `executablePath`, `@google/gemini-cli` nor `gemini` on `PATH` is found.
 *
 * @example
 * const backend = createGeminiCliBackend({ env: process.env, defaultModel: 'gemini-2.5-pro' });
 */
export function createGeminiCliBackend(options: GeminiCliBackendOptions = {}): AgentCliBackend {
  const clock = options.clock ?? systemClock;
  const sessions = createAgentSessions();
  const env = options.env ?? {};

  async function run(request: CodergenRequest): Promise<Outcome> {
    const { location, resume, stage } = await startCliAgentStage({
      request,
      agent: 'gemini-cli',
      sessions,
      // The CLI would otherwise restart itself in a second Node process to raise its heap limit.
      env: { GEMINI_CLI_NO_RELAUNCH: 'true', ...env },
      executablePath: options.executablePath,
      clock,
      // Gemini CLI has no structured-output option: the schema goes into the prompt, the handler checks the answer.
      outputSchemaInPrompt: true,
    });
    const { node } = request;
    const model = node.llmModel ?? options.defaultModel;
    if (node.attributes.reasoning_effort !== undefined) {
      stage.log('info', 'Gemini CLI has no reasoning-effort setting; reasoning_effort is not passed on');
    }
    const args = [
      ...location.args,
      '--prompt',
      '',
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--approval-mode',
      options.permissions === 'full' ? 'yolo' : 'auto_edit',
      '--include-directories',
      request.stageDir,
      ...(model === undefined ? [] : ['--model', model]),
      ...(resume === undefined ? [] : ['--resume', resume]),
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
      ...agentSandbox('gemini-cli', request, stage.env),
    });
    const reader = createStreamReader(stage);
    for await (const line of readJsonLines(agentProcess.child.stdout)) {
      stage.transcript.write({ type: 'line', ...line });
      if ('json' in line) reader.read(line.json);
    }
    reader.flushText();
    const exit = await agentProcess.finished;
    if (request.abortSignal.aborted) {
      await stage.transcript.flush().catch(() => undefined);
      throw request.abortSignal.reason;
    }
    if (stage.sessionId !== undefined) sessions.remember(request, stage.sessionId);
    const stderr = exit.stderr.trim().slice(-1000);
    let ending = reader.ending();
    if (ending === undefined || (ending.kind === 'success' && exit.exitCode !== 0)) {
      ending = {
        kind: 'error',
        message: `Gemini CLI exited with ${exit.signal ?? `code ${exit.exitCode}`}${stderr === '' ? '' : `: ${stderr}`}`,
        retryable: false,
      };
    }
    return stage.finish(ending);
  }

  return { run, sessionId: (threadKey) => sessions.get(threadKey) };
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Reads the stream-JSON lines of one session: assistant deltas are joined into whole messages. */
function createStreamReader(stage: AgentStage) {
  let pending = '';
  let lastText = '';
  let ending: AgentEnding | undefined;
  const flushText = () => {
    if (pending.trim() !== '') {
      stage.text(pending);
      lastText = pending;
    }
    pending = '';
  };
  return {
    flushText,
    ending: () => (ending?.kind === 'success' ? { kind: 'success' as const, text: lastText } : ending),
    read(event: Readonly<Record<string, unknown>>) {
      switch (event.type) {
        case 'init':
          stage.session(text(event.session_id), text(event.model) || undefined);
          return;
        case 'message':
          if (event.role !== 'assistant') return;
          if (event.delta === true) pending += text(event.content);
          else {
            flushText();
            pending = text(event.content);
            flushText();
          }
          return;
        case 'tool_use':
          flushText();
          stage.toolStarted(text(event.tool_id), text(event.tool_name), event.parameters);
          return;
        case 'tool_result':
          stage.toolCompleted(
            text(event.tool_id),
            text(event.output) || text(field(event.error, 'message')),
            event.status !== 'success',
          );
          return;
        case 'error':
          stage.log(event.severity === 'warning' ? 'warn' : 'error', `Gemini CLI: ${text(event.message)}`);
          return;
        case 'result': {
          flushText();
          const stats = event.stats;
          const models = Object.keys((field(stats, 'models') as Record<string, unknown> | undefined) ?? {});
          stage.usage({
            inputTokens: Number(field(stats, 'input_tokens') ?? 0),
            outputTokens: Number(field(stats, 'output_tokens') ?? 0),
            ...(models[0] === undefined ? {} : { model: models[0] }),
          });
          ending =
            event.status === 'success'
              ? { kind: 'success', text: '' }
              : {
                  kind: 'error',
                  message: `Gemini CLI failed: ${text(field(event.error, 'message')) || text(event.status)}`,
                  retryable: false,
                };
          return;
        }
        default:
          return;
      }
    },
  };
}
