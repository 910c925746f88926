/**
 * Starts a coding-agent CLI as the leader of its own process group
 * (docs/architecture.md "Agent-CLI backends"), so that a timeout, a cancel or the end of the stage ends the
 * agent and every command it started, not just the agent.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Clock, CommandSandbox } from '@attractor/engine';
import { killProcessGroup, trackProcessGroup } from '@attractor/engine/internal';

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
  /**
   * Start the agent confined by the run's sandbox (`CodergenRequest.sandbox`): `cwd` and `writable` (the stage
   * directory, the agent's own state) writable, the network kept (the agent calls its model). Default: unconfined.
   */
  readonly sandbox?: { readonly sandbox: CommandSandbox; readonly writable: readonly string[] };
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
 * leader exits, any process still left in its group is killed: no agent process outlives the stage. `stop()` (a
 * timeout or cancel) also ends the groups of descendants that started their own (Gemini CLI runs each shell
 * command in a new session), found in `/proc` before the kill. If this Node process exits first, the agent's
 * group is killed too (`trackProcessGroup`).
 */
export function startAgentProcess(options: StartAgentProcessOptions): AgentProcess {
  const started =
    options.sandbox === undefined
      ? { file: options.command, args: options.args }
      : options.sandbox.sandbox.wrap({
          file: options.command,
          args: options.args,
          cwd: options.cwd,
          writable: options.sandbox.writable,
          network: true,
        });
  const child = spawn(started.file, [...started.args], {
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
  // Groups of descendants that left the agent's group (Gemini CLI starts each shell command in a new session).
  let escapedGroups: number[] = [];
  const killAll = (signal: NodeJS.Signals) => {
    if (pid === undefined) return;
    killProcessGroup(pid, signal);
    for (const group of escapedGroups) killProcessGroup(group, signal);
  };
  const stop = () => {
    if (pid === undefined || stopping) return;
    stopping = true;
    escapedGroups = descendantGroups(pid);
    killAll('SIGTERM');
    options.clock.sleep(options.killGraceMs ?? 2000, timers.signal).then(
      () => killAll('SIGKILL'),
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
    killAll('SIGKILL');
    timers.abort();
    untrack?.();
    return exit;
  });
  return { child, stop, finished };
}

/**
 * The process groups of every descendant of `rootPid` other than its own group and ours, read from `/proc`
 * (Linux; elsewhere none). Taken before the kill, while the tree still hangs together.
 */
function descendantGroups(rootPid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, { pid: number; group: number }[]>();
  let ownGroup: number | undefined;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat === undefined) continue;
    if (stat.pid === process.pid) ownGroup = stat.group;
    const siblings = children.get(stat.parent) ?? [];
    siblings.push({ pid: stat.pid, group: stat.group });
    children.set(stat.parent, siblings);
  }
  const groups = new Set<number>();
  const queue = [rootPid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      if (child.group !== rootPid && child.group !== ownGroup && child.group > 1) groups.add(child.group);
      queue.push(child.pid);
    }
  }
  return [...groups];
}

function readStat(pid: string): { pid: number; parent: number; group: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid: Number(pid), parent: Number(fields[1]), group: Number(fields[2]) };
  } catch {
    return undefined;
  }
}
