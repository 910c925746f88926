/**
 * Process groups of shell commands started by handlers and backends (docs/architecture.md "Tool nodes").
 * Commands run detached in their own group so a timeout kills grandchildren too; execa's own cleanup is off
 * for detached children, so the groups still running are killed here if this process exits first.
 */

import { readdirSync, readFileSync } from 'node:fs';

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Sends `signal` to every process of the group led by `pid`. A group that is already gone is ignored.
 */
export function killProcessGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Remembers a running process group so it is killed (SIGKILL) if this process exits before it ends.
 * Returns the function that forgets it; call it once the command has ended.
 */
export function trackProcessGroup(pid: number): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const live of liveGroups) killProcessGroup(live, 'SIGKILL');
    });
  }
  liveGroups.add(pid);
  return () => {
    liveGroups.delete(pid);
  };
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether any process of the group led by `pgid` is still running. A zombie (exited, not yet reaped: orphans in a
 * container whose init does not reap) does not count. On Linux the members are found in `/proc`; elsewhere any
 * member that can still be signalled counts.
 */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}
