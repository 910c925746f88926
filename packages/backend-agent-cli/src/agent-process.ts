/**
 * Starts a coding-agent CLI as the leader of its own process group (DESIGN.md "Agent-CLI backends"), so that a
 * timeout, a cancel or the end of the stage ends the agent and every command it started, not just the agent.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type Clock, killProcessGroup, trackProcessGroup } from '@attractor/engine';

/** Options of {@link startAgentProcess}. */
export interface StartAgentProcessOptions {
  /** The executable (an absolute path or a name looked up on the env's `PATH`). */
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The agent's complete environment (nothing is inherited). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Ends the process group when aborted: SIGTERM, then SIGKILL after `killGraceMs`. */
  readonly abortSignal: AbortSignal;
  /** Time between SIGTERM and SIGKILL, in milliseconds. Default: 2000. */
  readonly killGraceMs?: number;
  /** Times the grace period. */
  readonly clock: Clock;
  /** Text written to stdin, which is then closed. Default: stdin stays open for the caller. */
  readonly input?: string;
}

/** How an agent process ended. */
export interface AgentProcessExit {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last 8000 characters of stderr. */
  readonly stderr: string;
}

/** A running agent process. */
export interface AgentProcess {
  /** The Node child process (stdin, stdout and stderr are pipes). */
  readonly child: ChildProcessWithoutNullStreams;
  /** Ends the whole process group now (SIGTERM, SIGKILL after the grace time). Safe to call more than once. */
  stop(): void;
  /** Settles when the leader has exited and its output is closed; whatever is left of its group is killed then. */
  readonly finished: Promise<AgentProcessExit>;
}

/**
 * Spawns the agent detached (its own process group) with piped stdio; stderr is collected (its tail). When the
 * leader exits, any process still left in its group is killed: no agent process outlives the stage. If this Node
 * process exits first, the group is killed too (`trackProcessGroup`).
 */
export function startAgentProcess(options: StartAgentProcessOptions): AgentProcess {
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: Object.fromEntries(
      Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  const untrack = pid === undefined ? undefined : trackProcessGroup(pid);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  // A write to an agent that already exited must not crash the runner.
  child.stdin.on('error', () => undefined);
  if (options.input !== undefined) child.stdin.end(options.input);
  const timers = new AbortController();
  let stopping = false;
  const stop = () => {
    if (pid === undefined || stopping) return;
    stopping = true;
    killProcessGroup(pid, 'SIGTERM');
    options.clock.sleep(options.killGraceMs ?? 2000, timers.signal).then(
      () => killProcessGroup(pid, 'SIGKILL'),
      () => undefined,
    );
  };
  if (options.abortSignal.aborted) stop();
  else options.abortSignal.addEventListener('abort', stop, { once: true });
  const finished = new Promise<AgentProcessExit>((resolve) => {
    let spawnError: Error | undefined;
    child.once('error', (error) => {
      spawnError = error;
      if (pid === undefined) resolve({ exitCode: null, signal: null, stderr: error.message });
    });
    child.once('close', (exitCode, signal) => {
      resolve({
        exitCode,
        signal,
        stderr: spawnError === undefined ? stderr : `${stderr}${spawnError.message}`,
      });
    });
  }).then((exit) => {
    options.abortSignal.removeEventListener('abort', stop);
    // The leader is gone; commands it started in the background go with it.
    if (pid !== undefined) killProcessGroup(pid, 'SIGKILL');
    timers.abort();
    untrack?.();
    return exit;
  });
  return { child, stop, finished };
}
