/**
 * Tool call hooks of spec §9.7: `tool_hooks.pre` / `tool_hooks.post` shell commands (node attribute first, then
 * graph attribute) run around every LLM tool call. The pre-hook decides: exit 0 proceeds, non-zero skips the
 * call. Both get the call's metadata in environment variables and as JSON on stdin, and both are recorded in the
 * transcript and as stage events.
 */
import type { Clock, EmittableEvent, JsonValue } from '@attractor/engine';
import type { Graph, GraphNode } from '@attractor/graph';
import { runShellCommand, type ShellCommandResult, type ShellSandbox } from './run-shell-command.js';
import type { TranscriptWriter } from './transcript-file.js';

/** The hook commands of a stage. */
export interface ToolHooks {
  readonly pre?: string;
  readonly post?: string;
}

/** The hooks for a node: its own `tool_hooks.pre` / `.post` attributes, else the graph's. Empty values disable. */
export function resolveToolHooks(node: GraphNode, graph: Graph): ToolHooks {
  const pick = (own: string | undefined, inherited: string | undefined) => {
    const value = (own ?? inherited ?? '').trim();
    return value === '' ? undefined : value;
  };
  const pre = pick(node.attributes['tool_hooks.pre']?.value, graph.settings.toolHooksPre);
  const post = pick(node.attributes['tool_hooks.post']?.value, graph.settings.toolHooksPost);
  return { ...(pre === undefined ? {} : { pre }), ...(post === undefined ? {} : { post }) };
}

/** Options of {@link runToolHook}. */
export interface RunToolHookOptions {
  readonly hooks: ToolHooks;
  readonly phase: 'pre' | 'post';
  readonly nodeId: string;
  readonly stageDir: string;
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly toolName: string;
  readonly callId: string;
  readonly arguments: JsonValue;
  /** For the post-hook: the tool's (untruncated) output. */
  readonly result?: { readonly output: string; readonly isError: boolean };
  readonly clock: Clock;
  readonly emit: (event: EmittableEvent) => void;
  readonly transcript: TranscriptWriter;
  readonly abortSignal?: AbortSignal;
  /** Confines the hook command (the run's sandbox). Default: unconfined. */
  readonly sandbox?: ShellSandbox;
}

/**
 * Runs the hook of `phase`, if the stage has one, with `ATTRACTOR_TOOL_HOOK` (`pre`/`post`),
 * `ATTRACTOR_TOOL_NAME`, `ATTRACTOR_TOOL_CALL_ID`, `ATTRACTOR_NODE_ID`, `ATTRACTOR_STAGE_DIR` (and for post
 * `ATTRACTOR_TOOL_IS_ERROR`) in its environment and `{ phase, node_id, tool_name, call_id, arguments, output?,
 * is_error? }` as JSON on stdin. Returns undefined when there is no hook.
 */
export async function runToolHook(options: RunToolHookOptions): Promise<ShellCommandResult | undefined> {
  const command = options.phase === 'pre' ? options.hooks.pre : options.hooks.post;
  if (command === undefined) return undefined;
  const payload = {
    phase: options.phase,
    node_id: options.nodeId,
    tool_name: options.toolName,
    call_id: options.callId,
    arguments: options.arguments,
    ...(options.result === undefined
      ? {}
      : { output: options.result.output, is_error: options.result.isError }),
  };
  const result = await runShellCommand({
    command,
    cwd: options.workdir,
    env: {
      ...options.env,
      ATTRACTOR_TOOL_HOOK: options.phase,
      ATTRACTOR_TOOL_NAME: options.toolName,
      ATTRACTOR_TOOL_CALL_ID: options.callId,
      ATTRACTOR_NODE_ID: options.nodeId,
      ATTRACTOR_STAGE_DIR: options.stageDir,
      ...(options.result === undefined ? {} : { ATTRACTOR_TOOL_IS_ERROR: String(options.result.isError) }),
    },
    input: JSON.stringify(payload),
    timeoutMs: options.timeoutMs,
    clock: options.clock,
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
  });
  const exit = result.exitCode ?? null;
  const skipped = options.phase === 'pre' && result.exitCode !== 0;
  const record = {
    command,
    toolName: options.toolName,
    callId: options.callId,
    exitCode: exit,
    timedOut: result.timedOut,
    output: result.output,
    ...(options.phase === 'pre' ? { skipped } : {}),
  };
  await options.transcript.write({ type: `hook.${options.phase}`, ...record });
  options.emit({ type: 'stage.custom', name: `tool_hook.${options.phase}`, data: record });
  if (result.exitCode !== 0) {
    options.emit({
      type: 'stage.log',
      level: 'warn',
      message:
        options.phase === 'pre'
          ? `tool_hooks.pre exited with ${exit ?? result.signal ?? 'an error'}: skipped ${options.toolName} call ${options.callId}`
          : `tool_hooks.post exited with ${exit ?? result.signal ?? 'an error'} after ${options.toolName} call ${options.callId}`,
    });
  }
  return result;
}
