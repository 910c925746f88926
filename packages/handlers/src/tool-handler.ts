/**
 * The `tool` handler (spec §4.10, DESIGN.md "Tool nodes"): runs `tool_command` in a shell, in its own process group
 * so a timeout or cancellation kills everything the command started.
 *
 * It uses `node:child_process` directly rather than execa: starting a command is on the critical path of every
 * tool node and of parallel fan-outs, and execa's stream machinery cost about 2 ms of CPU per command (and ~40 MB
 * of resident memory, which every later fork copies page tables for) — see the conformance `parallel` benchmark.
 */
import { spawn } from 'node:child_process';
import type { Handler, HandlerRuntime, JsonValue, Outcome } from '@attractor/engine';
import { killProcessGroup, trackProcessGroup } from '@attractor/engine';
import { nodeAttribute } from '@attractor/graph';
import { readWrittenStatus, removeStatusFile, writeStageFile } from './stage-files.js';
import { truncateHead, truncateTail } from './truncate-text.js';

/** Characters of stdout kept in the `tool.output` context value. Default of {@link ToolHandlerOptions.outputMaxChars}. */
export const TOOL_OUTPUT_MAX_CHARS = 10_240;
/** Characters of stderr kept in `tool.stderr` and in the failure reason. */
export const TOOL_STDERR_TAIL_CHARS = 2_048;

/** Options of {@link createToolHandler}. */
export interface ToolHandlerOptions {
  /**
   * Record the command (`command.sh` in the stage directory and a `stage.log` event) without running it, and
   * return SUCCESS with notes saying so. Default: false.
   */
  readonly dryRun?: boolean;
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
 * a signal ended the command) and `tool.stderr` (the last 2 KB). Exit 0 is SUCCESS; any other exit is FAIL with
 * the exit code and the stderr tail as the reason. A `status.json` the command writes in `$ATTRACTOR_STAGE_DIR`
 * overrides the outcome (spec Appendix C); its context updates are merged over the `tool.*` keys.
 *
 * When `runtime.abortSignal` aborts (node `timeout`, run cancellation), the whole group gets SIGTERM and, after
 * `killGraceMs`, SIGKILL, so grandchildren (`sleep` started by the shell) die too.
 *
 * @example
 * registry.register('tool', createToolHandler({ shell: '/bin/bash' }));
 */
export function createToolHandler(options: ToolHandlerOptions = {}): Handler {
  return {
    async execute(node, _context, _graph, logsRoot, runtime) {
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
        return {
          status: 'success',
          notes: `Dry run: command not executed (recorded in command.sh): ${command}`,
        };
      }
      await removeStatusFile(runtime.stageDir);
      const run = await runCommand(command, {
        runtime,
        env: {
          // The one read of process.env in the library: commands inherit the user's environment (DESIGN.md).
          ...(options.env ?? process.env),
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
      const stderrTail = truncateTail(run.stderr, TOOL_STDERR_TAIL_CHARS);
      const contextUpdates: Record<string, JsonValue> = {
        'tool.output': truncateHead(run.stdout, options.outputMaxChars ?? TOOL_OUTPUT_MAX_CHARS),
        'tool.exit_code': run.exitCode ?? null,
        'tool.stderr': stderrTail,
      };
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
  readonly shell: boolean | string;
  readonly killGraceMs: number;
}

/**
 * Runs `command` in a shell as the leader of a new process group and waits until it exited and its output pipes
 * closed (a background child that keeps them open is waited for, as a shell would). Never rejects.
 */
async function runCommand(command: string, options: RunCommandOptions): Promise<CommandRun> {
  const { runtime } = options;
  const child = spawn(command, {
    shell: options.shell,
    detached: true,
    cwd: runtime.workdir,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
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
    const ended = await new Promise<
      { code: number | null; signal: NodeJS.Signals | null } | { error: Error }
    >((resolve) => {
      child.once('error', (error) => resolve({ error }));
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
    if ('error' in ended) {
      // Only a failure to start the shell (missing working directory, no shell) reaches here.
      return {
        stdout,
        stderr,
        exitCode: undefined,
        signal: undefined,
        spawnError: `command could not be started in ${runtime.workdir}: ${ended.error.message}`,
      };
    }
    return {
      stdout,
      stderr,
      exitCode: ended.code ?? undefined,
      signal: ended.signal ?? undefined,
    };
  } finally {
    runtime.abortSignal.removeEventListener('abort', onAbort);
    untrack?.();
    // The group leader is gone; stop the pending SIGKILL only once nothing of the group can remain.
    if (!runtime.abortSignal.aborted) graceController.abort();
  }
}
