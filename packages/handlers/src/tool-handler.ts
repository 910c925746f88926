/**
 * The `tool` handler (spec §4.10, DESIGN.md "Tool nodes"): runs `tool_command` in a shell with execa, in its own
 * process group so a timeout or cancellation kills everything the command started.
 */
import type { Handler, HandlerRuntime, Outcome } from '@attractor/engine';
import { killProcessGroup, trackProcessGroup } from '@attractor/engine';
import { type GraphEdge, nodeAttribute } from '@attractor/graph';
import { execa } from 'execa';
import { readSimulationStep, type SimulationScript } from './simulation-script.js';
import { readWrittenStatus, removeStatusFile, writeStageFile } from './stage-files.js';
import { routableToolOutput, TOOL_OUTPUT_MAX_CHARS, toolContextUpdates } from './tool-context.js';
import { truncateTail } from './truncate-text.js';

/** Options of {@link createToolHandler}. */
export interface ToolHandlerOptions {
  /**
   * Record the command (`command.sh` in the stage directory and a `stage.log` event) without running it, and
   * return SUCCESS with notes saying so and a simulated stdout (see {@link createToolHandler}). Default: false.
   */
  readonly dryRun?: boolean;
  /**
   * Dry run only: steps per tool node id, one per call (the CLI's `--simulate-script`): an outcome word, or
   * `{ "outcome"?: word, "stdout"?: text }` for what the command "prints". Without `dryRun`, a script entry for a
   * tool node is ignored with a `stage.log` warning (the command runs for real). Default: `{}`.
   */
  readonly script?: SimulationScript;
  /** The shell: `true` for `/bin/sh`, or a path such as `/bin/bash`. Default: true. */
  readonly shell?: boolean | string;
  /** Milliseconds between SIGTERM and SIGKILL of the process group when the stage is aborted. Default: 2000. */
  readonly killGraceMs?: number;
  /** Characters of stdout kept in `tool.output` (the rest is cut with a marker). Default: 10240. */
  readonly outputMaxChars?: number;
  /**
   * The environment commands start from; the `ATTRACTOR_*` variables are added to it. Default: the environment of
   * this process (`process.env`), as a shell the user starts would get.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Creates the `tool` handler (spec §4.10, DESIGN.md "Tool nodes").
 *
 * Runs the node's `tool_command` in a shell (`cwd` = `runtime.workdir`, stdin closed) as the leader of its own
 * process group, with `ATTRACTOR_RUN_ID`, `ATTRACTOR_LOGS_ROOT`, `ATTRACTOR_STAGE_DIR` and `ATTRACTOR_NODE_ID` added to
 * the environment. stdout and stderr go in full to `stdout.txt` / `stderr.txt` in the stage directory; the
 * context gets `tool.output` (stdout, truncated to 10 KB with a marker), `tool.exit_code` (a number, or null when
 * a signal ended the command) and `tool.stderr` (the last 2 KB), and the same text without trailing whitespace
 * under the 2389 tracker's names `tool_stdout` / `tool_stderr` (`TOOL_DIALECT_KEYS`), so pipelines written for
 * that runner route as they did there. Exit 0 is SUCCESS; any other exit is FAIL with the exit code and the
 * stderr tail as the reason. A `status.json` the command writes in `$ATTRACTOR_STAGE_DIR` overrides the outcome
 * (spec Appendix C); its context updates are merged over the `tool.*` keys.
 *
 * In a dry run the command is recorded, not run. The n-th call of a node takes the n-th step of `script[node.id]`
 * (default: SUCCESS): its outcome word (a `fail` sets `tool.exit_code` 1 and a failure reason) and its `stdout`.
 * Without a scripted `stdout` the output is `''`, unless the outcome is not a failure and no outgoing edge is
 * eligible with an empty output; then it is the first value the node's conditions compare the output with that
 * makes an edge eligible (`routableToolOutput`). The counters live in the handler: use one registry per run.
 *
 * When `runtime.abortSignal` aborts (node `timeout`, run cancellation), the whole group gets SIGTERM and, after
 * `killGraceMs`, SIGKILL, so grandchildren (`sleep` started by the shell) die too.
 *
 * @example
 * registry.register('tool', createToolHandler({ shell: '/bin/bash' }));
 */
export function createToolHandler(options: ToolHandlerOptions = {}): Handler {
  const script = options.script ?? {};
  const calls = new Map<string, number>();
  return {
    async execute(node, context, graph, logsRoot, runtime) {
      const command = nodeAttribute(node, 'tool_command')?.trim() ?? '';
      if (command === '') {
        return {
          status: 'fail',
          failureReason: `No tool_command specified on tool node "${node.id}"; add tool_command="<shell command>"`,
          retryable: false,
        };
      }
      if (options.dryRun === true) {
        await writeStageFile(runtime.stageDir, 'command.sh', `#!/bin/sh\n${command}\n`);
        runtime.emit({ type: 'stage.log', level: 'info', message: `dry run: would run ${command}` });
        const call = (calls.get(node.id) ?? 0) + 1;
        calls.set(node.id, call);
        return dryRunOutcome({
          command,
          call,
          step: readSimulationStep(script[node.id]?.[call - 1]),
          nodeId: node.id,
          edges: graph.outgoing(node.id),
          context,
          outputMaxChars: options.outputMaxChars ?? TOOL_OUTPUT_MAX_CHARS,
        });
      }
      if (Object.hasOwn(script, node.id)) {
        runtime.emit({
          type: 'stage.log',
          level: 'warn',
          message: `the simulation script's entry for tool node "${node.id}" is ignored: its command runs for real (script a tool node's output with --dry-run)`,
        });
      }
      await removeStatusFile(runtime.stageDir);
      const run = await runCommand(command, {
        runtime,
        inheritEnv: options.env === undefined,
        env: {
          ...options.env,
          ATTRACTOR_RUN_ID: runtime.runId,
          ATTRACTOR_LOGS_ROOT: logsRoot,
          ATTRACTOR_STAGE_DIR: runtime.stageDir,
          ATTRACTOR_NODE_ID: node.id,
        },
        shell: options.shell ?? true,
        killGraceMs: options.killGraceMs ?? 2000,
      });
      await writeStageFile(runtime.stageDir, 'stdout.txt', run.stdout);
      await writeStageFile(runtime.stageDir, 'stderr.txt', run.stderr);
      const contextUpdates = toolContextUpdates(run, options.outputMaxChars ?? TOOL_OUTPUT_MAX_CHARS);
      let outcome: Outcome;
      if (run.spawnError !== undefined) {
        outcome = { status: 'fail', failureReason: run.spawnError, contextUpdates };
      } else if (run.exitCode === 0) {
        outcome = { status: 'success', notes: `Tool completed: ${command}`, contextUpdates };
      } else {
        const how =
          run.exitCode === undefined
            ? `was killed by ${run.signal ?? 'a signal'}`
            : `exited with code ${run.exitCode}`;
        const tail = truncateTail(run.stderr.trim(), 500);
        outcome = {
          status: 'fail',
          failureReason: `command ${how}${tail === '' ? '' : `: ${tail}`}`,
          contextUpdates,
        };
      }
      const written = await readWrittenStatus(runtime.stageDir);
      if (written === undefined) return outcome;
      return { ...written, contextUpdates: { ...contextUpdates, ...(written.contextUpdates ?? {}) } };
    },
  };
}

interface DryRunOptions {
  readonly command: string;
  readonly call: number;
  readonly step: { readonly outcome?: string; readonly stdout?: string };
  readonly nodeId: string;
  readonly edges: readonly GraphEdge[];
  readonly context: { get(key: string): unknown };
  readonly outputMaxChars: number;
}

function dryRunOutcome(options: DryRunOptions): Outcome {
  const { step, command } = options;
  const status = step.outcome ?? 'success';
  const failed = status === 'fail' || status === 'retry';
  // A simulated failure prints nothing unless scripted: it routes as a failed command would, on outcome=fail.
  const stdout =
    step.stdout ??
    (failed ? '' : routableToolOutput({ edges: options.edges, context: options.context, outcome: status }));
  const contextUpdates = toolContextUpdates(
    { stdout, stderr: '', exitCode: status === 'fail' ? 1 : 0 },
    options.outputMaxChars,
  );
  const printed = stdout === '' ? '' : `; simulated output ${JSON.stringify(stdout)}`;
  return {
    status,
    notes: `Dry run: command not executed (recorded in command.sh)${printed}: ${command}`,
    contextUpdates,
    ...(failed
      ? { failureReason: `simulated ${status} (script entry ${options.call} for "${options.nodeId}")` }
      : {}),
  };
}

/**
 * Characters of each stream sent live as `stage.custom` events (`tool.stdout` / `tool.stderr`, data `{ text }`)
 * while a command runs, so that a watcher (the server's web UI) shows its output before it ends. Past this, one
 * last event says the rest is in the stage's `stdout.txt` / `stderr.txt`, which always hold everything.
 */
export const TOOL_LIVE_OUTPUT_MAX_CHARS = 32 * 1024;

/** Emits each chunk of `stream` as a `stage.custom` event named `tool.<name>`, up to the live-output cap. */
function forwardLiveOutput(
  stream: NodeJS.ReadableStream | null | undefined,
  name: 'stdout' | 'stderr',
  runtime: HandlerRuntime,
): void {
  if (stream === null || stream === undefined) return;
  let sent = 0;
  const decoder = new TextDecoder();
  const onData = (chunk: Buffer | string) => {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (text === '') return;
    const room = TOOL_LIVE_OUTPUT_MAX_CHARS - sent;
    if (text.length <= room) {
      sent += text.length;
      runtime.emit({ type: 'stage.custom', name: `tool.${name}`, data: { text } });
      return;
    }
    if (room > 0)
      runtime.emit({ type: 'stage.custom', name: `tool.${name}`, data: { text: text.slice(0, room) } });
    runtime.emit({
      type: 'stage.custom',
      name: `tool.${name}`,
      data: { text: `\n[live output stops here; ${name}.txt in the stage directory holds all of it]\n` },
    });
    sent = TOOL_LIVE_OUTPUT_MAX_CHARS;
    stream.removeListener('data', onData);
  };
  stream.on('data', onData);
}

interface CommandRun {
  readonly stdout: string;
  readonly stderr: string;
  /** Undefined when a signal ended the command or it never started. */
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  /** Why the command could not be started (missing working directory, ...). */
  readonly spawnError?: string;
}

interface RunCommandOptions {
  readonly runtime: HandlerRuntime;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether `env` is added to this process's environment (true) or replaces it (false). */
  readonly inheritEnv: boolean;
  readonly shell: boolean | string;
  readonly killGraceMs: number;
}

/**
 * Runs `command` in a shell with execa, as the leader of a new process group, and waits until it exited and its
 * output pipes closed (a background child that keeps them open is waited for, as a shell would). Never rejects.
 */
async function runCommand(command: string, options: RunCommandOptions): Promise<CommandRun> {
  const { runtime } = options;
  const subprocess = execa(command, {
    shell: options.shell,
    detached: true,
    reject: false,
    cwd: runtime.workdir,
    env: options.env,
    // Without an explicit environment, commands inherit this process's (execa's extendEnv).
    extendEnv: options.inheritEnv,
    stdin: 'ignore',
    stripFinalNewline: false,
  });
  const pid = subprocess.pid;
  forwardLiveOutput(subprocess.stdout, 'stdout', runtime);
  forwardLiveOutput(subprocess.stderr, 'stderr', runtime);
  const graceController = new AbortController();
  const onAbort = () => {
    if (pid === undefined) return;
    killProcessGroup(pid, 'SIGTERM');
    runtime.clock.sleep(options.killGraceMs, graceController.signal).then(
      () => killProcessGroup(pid, 'SIGKILL'),
      () => undefined,
    );
  };
  const untrack = pid === undefined ? undefined : trackProcessGroup(pid);
  if (pid !== undefined) {
    if (runtime.abortSignal.aborted) onAbort();
    else runtime.abortSignal.addEventListener('abort', onAbort, { once: true });
  }
  try {
    const result = await subprocess;
    const stdout = typeof result.stdout === 'string' ? result.stdout : '';
    const stderr = typeof result.stderr === 'string' ? result.stderr : '';
    const started = pid !== undefined && (result.exitCode !== undefined || result.signal !== undefined);
    const spawnError = started
      ? undefined
      : `command could not be started in ${runtime.workdir}: ${result.shortMessage}`;
    return {
      stdout,
      stderr,
      exitCode: result.exitCode,
      signal: result.signal,
      ...(spawnError === undefined ? {} : { spawnError }),
    };
  } finally {
    runtime.abortSignal.removeEventListener('abort', onAbort);
    untrack?.();
    // The group leader is gone; stop the pending SIGKILL only once nothing of the group can remain.
    if (!runtime.abortSignal.aborted) graceController.abort();
  }
}
