/**
 * Process groups of shell commands started by handlers and backends (DESIGN.md "Tool nodes"). Commands run
 * detached in their own group so a timeout kills grandchildren too; execa's own cleanup is off for detached
 * children, so the groups still running are killed here if this process exits first.
 */

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
