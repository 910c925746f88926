/**
 * The tools of one agent stage as an AI SDK `ToolSet`: the core tools of coding-agent-loop-spec §3.3 confined to
 * the working directory, plus `report_outcome`. Every call runs the tool-call pipeline of §3.8: pre-hook (spec
 * §9.7), execute, truncate (§5), event with the full output, post-hook, transcript.
 */
import type { Clock, EmittableEvent, JsonValue } from '@attractor/engine';
import type { CodingToolName } from '@attractor/graph';
import { type ToolSet, tool } from 'ai';
import { z } from 'zod';
import type { McpStageTool } from './mcp-servers.js';
import { runShellCommand, type ShellSandbox } from './run-shell-command.js';
import type { ToolHooks } from './tool-hooks.js';
import { runToolHook } from './tool-hooks.js';
import type { TranscriptWriter } from './transcript-file.js';
import { type ToolOutputLimit, truncateToolOutput } from './truncate-output.js';
import {
  editWorkdirFile,
  globWorkdir,
  grepWorkdir,
  readWorkdirFile,
  writeWorkdirFile,
} from './workdir-files.js';

/** Default shell timeout of coding-agent-loop-spec §5.4, in milliseconds. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
/** Upper bound of a shell timeout the model may ask for (coding-agent-loop-spec §5.4), in milliseconds. */
export const MAX_COMMAND_TIMEOUT_MS = 600_000;

/** What the model reported through `report_outcome`. */
export interface ReportedOutcome {
  readonly outcome: string;
  readonly preferredLabel?: string;
  readonly suggestedNextIds?: readonly string[];
  readonly contextUpdates?: Readonly<Record<string, JsonValue>>;
  readonly notes?: string;
  readonly failureReason?: string;
}

/** What a tool call returns to the loop: the truncated text the model sees and whether it is an error. */
interface ToolCallResult {
  readonly output: string;
  readonly isError: boolean;
}

/** Options of {@link createAgentTools}. */
export interface AgentToolsOptions {
  readonly toolNames: readonly CodingToolName[];
  /** Offer `report_outcome`. */
  readonly reportOutcome: boolean;
  readonly nodeId: string;
  readonly stageDir: string;
  readonly workdir: string;
  /** The shell environment, already filtered. */
  readonly env: Readonly<Record<string, string>>;
  readonly commandTimeoutMs: number;
  readonly maxCommandTimeoutMs: number;
  readonly outputLimits: Readonly<Record<string, ToolOutputLimit>>;
  readonly hooks: ToolHooks;
  readonly clock: Clock;
  readonly emit: (event: EmittableEvent) => void;
  readonly transcript: TranscriptWriter;
  readonly onReport: (reported: ReportedOutcome) => void;
  /** Confines the `shell` tool's commands and the tool hooks (the run's sandbox). Default: unconfined. */
  readonly sandbox?: ShellSandbox;
  /**
   * Tools of the node's MCP servers (`mcp_servers`), by the name the model sees (`<server>__<tool>`). They go
   * through the same pipeline as the built-in tools: hooks, events, truncation, transcript. Default: none.
   */
  readonly mcpTools?: Readonly<Record<string, McpStageTool>>;
}

const jsonScalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

/**
 * Builds the `ToolSet` for one stage. Tool failures (a missing file, a refused path, a bad regex) become error
 * results the model can react to; they never fail the stage.
 */
export function createAgentTools(options: AgentToolsOptions): ToolSet {
  const invoke = async (
    name: string,
    input: unknown,
    callId: string,
    abortSignal: AbortSignal | undefined,
    execute: () => Promise<string | ToolCallResult>,
  ): Promise<ToolCallResult> => {
    const startedAt = options.clock.now();
    const args = toJson(input);
    options.emit({ type: 'agent.tool_call.started', toolName: name, callId, arguments: args });
    await options.transcript.write({ type: 'tool_call', toolName: name, callId, arguments: args });
    const hookContext = {
      hooks: options.hooks,
      nodeId: options.nodeId,
      stageDir: options.stageDir,
      workdir: options.workdir,
      env: options.env,
      timeoutMs: options.commandTimeoutMs,
      clock: options.clock,
      emit: options.emit,
      transcript: options.transcript,
      ...(abortSignal === undefined ? {} : { abortSignal }),
      ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    };
    let raw: ToolCallResult;
    const pre = await runToolHook({ ...hookContext, phase: 'pre', toolName: name, callId, arguments: args });
    if (pre !== undefined && pre.exitCode !== 0) {
      raw = {
        output: `Tool call skipped by pre-hook (tool_hooks.pre exited with ${pre.exitCode ?? pre.signal ?? 'an error'})${pre.output.trim() === '' ? '.' : `: ${pre.output.trim()}`}`,
        isError: true,
      };
    } else {
      try {
        const result = await execute();
        raw = typeof result === 'string' ? { output: result, isError: false } : result;
      } catch (error) {
        raw = { output: `Tool error (${name}): ${message(error)}`, isError: true };
      }
    }
    const durationMs = options.clock.now() - startedAt;
    options.emit({
      type: 'agent.tool_call.completed',
      toolName: name,
      callId,
      output: raw.output,
      isError: raw.isError,
      durationMs,
    });
    const output = truncateToolOutput(raw.output, name, options.outputLimits);
    await options.transcript.write({
      type: 'tool_result',
      toolName: name,
      callId,
      isError: raw.isError,
      durationMs,
      output: raw.output,
      ...(output === raw.output ? {} : { truncatedOutput: output }),
    });
    await runToolHook({
      ...hookContext,
      phase: 'post',
      toolName: name,
      callId,
      arguments: args,
      result: { output: raw.output, isError: raw.isError },
    });
    return { output, isError: raw.isError };
  };

  const toModelOutput = ({ output }: { output: ToolCallResult }) =>
    output.isError
      ? { type: 'error-text' as const, value: output.output }
      : { type: 'text' as const, value: output.output };

  const { workdir } = options;
  const all = {
    read_file: tool({
      description:
        'Read a text file in the working directory. Returns line-numbered content ("NNN | line"). Paths are relative to the working directory.',
      inputSchema: z.object({
        file_path: z.string().describe('Path of the file, relative to the working directory'),
        offset: z.number().int().min(1).optional().describe('1-based line to start from'),
        limit: z.number().int().min(1).optional().describe('Maximum lines to read (default 2000)'),
      }),
      execute: (input, { toolCallId, abortSignal }) =>
        invoke('read_file', input, toolCallId, abortSignal, () =>
          readWorkdirFile({
            workdir,
            filePath: input.file_path,
            ...(input.offset === undefined ? {} : { offset: input.offset }),
            ...(input.limit === undefined ? {} : { limit: input.limit }),
          }),
        ),
      toModelOutput,
    }),
    write_file: tool({
      description:
        'Write content to a file in the working directory, creating it and its parent directories if needed. Replaces the whole file.',
      inputSchema: z.object({
        file_path: z.string().describe('Path of the file, relative to the working directory'),
        content: z.string().describe('The full file content'),
      }),
      execute: (input, { toolCallId, abortSignal }) =>
        invoke('write_file', input, toolCallId, abortSignal, () =>
          writeWorkdirFile({ workdir, filePath: input.file_path, content: input.content }),
        ),
      toModelOutput,
    }),
    edit_file: tool({
      description:
        'Replace an exact string in a file. old_string must match exactly once unless replace_all is true; read the file first.',
      inputSchema: z.object({
        file_path: z.string(),
        old_string: z.string().describe('The exact text to find'),
        new_string: z.string().describe('The replacement text'),
        replace_all: z.boolean().optional().describe('Replace every occurrence (default false)'),
      }),
      execute: (input, { toolCallId, abortSignal }) =>
        invoke('edit_file', input, toolCallId, abortSignal, () =>
          editWorkdirFile({
            workdir,
            filePath: input.file_path,
            oldString: input.old_string,
            newString: input.new_string,
            ...(input.replace_all === undefined ? {} : { replaceAll: input.replace_all }),
          }),
        ),
      toModelOutput,
    }),
    shell: tool({
      description: `Run a shell command (bash) in the working directory. Returns stdout and stderr, the exit code and the duration. Default timeout ${options.commandTimeoutMs} ms; set timeout_ms for longer commands (at most ${options.maxCommandTimeoutMs} ms).`,
      inputSchema: z.object({
        command: z.string().describe('The command to run'),
        timeout_ms: z.number().int().min(1).optional().describe('Timeout in milliseconds'),
        description: z.string().optional().describe('What the command does, for the log'),
      }),
      execute: (input, { toolCallId, abortSignal }) =>
        invoke('shell', input, toolCallId, abortSignal, async () => {
          const timeoutMs = Math.min(
            input.timeout_ms ?? options.commandTimeoutMs,
            options.maxCommandTimeoutMs,
          );
          const result = await runShellCommand({
            command: input.command,
            cwd: workdir,
            env: options.env,
            timeoutMs,
            clock: options.clock,
            ...(abortSignal === undefined ? {} : { abortSignal }),
            ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
          });
          const status = result.timedOut
            ? `\n[ERROR: Command timed out after ${timeoutMs}ms. Partial output is shown above.\nYou can retry with a longer timeout by setting the timeout_ms parameter.]`
            : `\n[exit code ${result.exitCode ?? result.signal ?? 'unknown'}; ${result.durationMs} ms]`;
          return { output: `${result.output}${status}`, isError: result.timedOut };
        }),
      toModelOutput,
    }),
    grep: tool({
      description:
        'Search file contents with a JavaScript regular expression. Returns matching lines as path:line: text.',
      inputSchema: z.object({
        pattern: z.string().describe('Regular expression'),
        path: z.string().optional().describe('File or directory to search (default: the working directory)'),
        glob_filter: z.string().optional().describe('Only files matching this glob, e.g. "*.py"'),
        case_insensitive: z.boolean().optional(),
        max_results: z.number().int().min(1).optional().describe('Default 100'),
      }),
      execute: (input, { toolCallId, abortSignal }) =>
        invoke('grep', input, toolCallId, abortSignal, () =>
          grepWorkdir({
            workdir,
            pattern: input.pattern,
            ...(input.path === undefined ? {} : { path: input.path }),
            ...(input.glob_filter === undefined ? {} : { globFilter: input.glob_filter }),
            ...(input.case_insensitive === undefined ? {} : { caseInsensitive: input.case_insensitive }),
            ...(input.max_results === undefined ? {} : { maxResults: input.max_results }),
          }),
        ),
      toModelOutput,
    }),
    glob: tool({
      description: 'Find files by glob pattern (e.g. "**/*.ts"). Returns paths, newest first.',
      inputSchema: z.object({
        pattern: z.string().describe('Glob pattern'),
        path: z.string().optional().describe('Base directory (default: the working directory)'),
      }),
      execute: (input, { toolCallId, abortSignal }) =>
        invoke('glob', input, toolCallId, abortSignal, () =>
          globWorkdir({
            workdir,
            pattern: input.pattern,
            ...(input.path === undefined ? {} : { path: input.path }),
          }),
        ),
      toModelOutput,
    }),
  } satisfies Record<CodingToolName, ToolSet[string]>;

  const tools: ToolSet = {};
  for (const name of options.toolNames) tools[name] = all[name];
  for (const [name, mcpTool] of Object.entries(options.mcpTools ?? {})) {
    tools[name] = tool({
      ...(mcpTool.description === undefined ? {} : { description: mcpTool.description }),
      inputSchema: mcpTool.inputSchema,
      execute: (input: unknown, { toolCallId, abortSignal }) =>
        invoke(name, input, toolCallId, abortSignal, () => mcpTool.call(input, abortSignal)),
      toModelOutput,
    });
  }
  if (options.reportOutcome) {
    tools.report_outcome = tool({
      description:
        'Report the outcome of this stage and finish. Use it when the stage failed or needs a retry, to choose a route (preferred_label / suggested_next_ids), or to pass values to later stages (context_updates). Without it, your final reply counts as success.',
      inputSchema: z.object({
        outcome: z
          .string()
          .describe('success, partial_success, retry, fail, or a custom outcome word the pipeline routes on'),
        preferred_label: z.string().optional().describe('Label of the outgoing edge to take'),
        suggested_next_ids: z
          .array(z.string())
          .optional()
          .describe('Node ids to go to next, in preference order'),
        context_updates: z
          .record(z.string(), jsonScalar)
          .optional()
          .describe('Values for later stages, by context key'),
        notes: z.string().optional().describe('What you did, in a sentence or two'),
        failure_reason: z.string().optional().describe('Why the stage failed (for fail or retry)'),
      }),
      execute: (input, { toolCallId, abortSignal }) =>
        invoke('report_outcome', input, toolCallId, abortSignal, async () => {
          options.onReport({
            outcome: input.outcome.trim().toLowerCase(),
            ...(input.preferred_label === undefined ? {} : { preferredLabel: input.preferred_label }),
            ...(input.suggested_next_ids === undefined ? {} : { suggestedNextIds: input.suggested_next_ids }),
            ...(input.context_updates === undefined ? {} : { contextUpdates: input.context_updates }),
            ...(input.notes === undefined ? {} : { notes: input.notes }),
            ...(input.failure_reason === undefined ? {} : { failureReason: input.failure_reason }),
          });
          return `Outcome "${input.outcome}" recorded.`;
        }),
      toModelOutput,
    });
  }
  return tools;
}
