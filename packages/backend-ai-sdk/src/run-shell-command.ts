/**
 * Runs a shell command for the `shell` tool and tool hooks (coding-agent-loop-spec §3.3 `shell`, §4.2, §5.4):
 * `/bin/bash --norc --noprofile -c` in its own process group, with a timeout that sends SIGTERM to the whole group, waits 2 s, then
 * SIGKILL, and returns the output collected so far. Timers go through the injected clock
 * (CONTRIBUTING.md "API shape").
 */
import type { Clock, CommandSandbox } from '@attractor/engine';
import { killProcessGroup, trackProcessGroup } from '@attractor/engine/internal';
import { execa } from 'execa';

/** How shell commands are confined (`CodergenRequest.sandbox`): the working directory and `writable` writable. */
export interface ShellSandbox {
  readonly sandbox: CommandSandbox;
  /** Writable besides the working directory: the stage directory. */
  readonly writable: readonly string[];
  /** Whether commands keep the network (the node's `sandbox_network`). */
  readonly network: boolean;
}

/** Options of {@link runShellCommand}. */
export interface RunShellCommandOptions {
  readonly command: string;
  readonly cwd: string;
  /** The complete environment of the child (already filtered). */
  readonly env: Readonly<Record<string, string>>;
  /** Time limit, in milliseconds. */
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL, in milliseconds. Default: 2000. */
  readonly killGraceMs?: number;
  /** Text written to the child's stdin (then closed). Default: nothing (stdin closed at once). */
  readonly input?: string;
  /** Kills the process group when aborted. */
  readonly abortSignal?: AbortSignal;
  readonly clock: Clock;
  /** Run the command confined (`bwrap ... -- /bin/bash -c ...`). Default: unconfined. */
  readonly sandbox?: ShellSandbox;
}

/** The result of {@link runShellCommand}. */
export interface ShellCommandResult {
  /** stdout and stderr interleaved as written. */
  readonly output: string;
  readonly stdout: string;
  readonly stderr: string;
  /** The exit code; undefined when a signal ended the process. */
  readonly exitCode?: number;
  readonly signal?: string;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly durationMs: number;
}

/**
 * Runs `command` with `/bin/bash -c` in a new process group and waits for it (and every process of its group that
 * holds its output open) to finish or be killed. Never rejects for a non-zero exit, a timeout or an abort: they
 * are reported in the result.
 */
export async function runShellCommand(options: RunShellCommandOptions): Promise<ShellCommandResult> {
  const startedAt = options.clock.now();
  // `--norc`: Node's stdio pipes are sockets, which makes bash think rshd started it and source ~/.bashrc.
  const shell = { file: '/bin/bash', args: ['--norc', '--noprofile', '-c', options.command] };
  const started =
    options.sandbox === undefined
      ? shell
      : options.sandbox.sandbox.wrap({
          ...shell,
          cwd: options.cwd,
          writable: options.sandbox.writable,
          network: options.sandbox.network,
        });
  const child = execa(started.file, [...started.args], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    detached: true,
    reject: false,
    all: true,
    stripFinalNewline: false,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
  });
  const pid = child.pid;
  const untrack = pid === undefined ? undefined : trackProcessGroup(pid);
  let timedOut = false;
  let aborted = false;
  const timers = new AbortController();
  const terminate = () => {
    if (pid === undefined) return;
    killProcessGroup(pid, 'SIGTERM');
    options.clock.sleep(options.killGraceMs ?? 2000, timers.signal).then(
      () => killProcessGroup(pid, 'SIGKILL'),
      () => undefined,
    );
  };
  options.clock.sleep(options.timeoutMs, timers.signal).then(
    () => {
      timedOut = true;
      terminate();
    },
    () => undefined,
  );
  const onAbort = () => {
    aborted = true;
    terminate();
  };
  if (options.abortSignal?.aborted) onAbort();
  else options.abortSignal?.addEventListener('abort', onAbort, { once: true });
  const result = await child;
  timers.abort();
  // Whatever of a terminated group outlived its leader (e.g. ignoring SIGTERM) goes now.
  if ((timedOut || aborted) && pid !== undefined) killProcessGroup(pid, 'SIGKILL');
  options.abortSignal?.removeEventListener('abort', onAbort);
  untrack?.();
  return {
    output: typeof result.all === 'string' ? result.all : '',
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
    ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
    ...(result.signal === undefined ? {} : { signal: result.signal }),
    timedOut,
    aborted,
    durationMs: options.clock.now() - startedAt,
  };
}
