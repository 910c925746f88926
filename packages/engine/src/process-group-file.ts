/**
 * `process-groups.json` in the run directory (docs/architecture.md "Checkpoint": one runner per run; a stale
 * run of a dead runner is taken over after ending the process groups it left). While a stage's command runs,
 * its process group is listed here with the runner's pid; a later runner that takes the run over (resume
 * after `kill -9` or a closed terminal) ends the groups of a dead runner before it re-runs the stage, so two
 * copies of one stage never write to the working directory at once. Written atomically (temp file + rename)
 * on every change.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { killProcessGroup, processGroupAlive } from './process-groups.js';
import { writeFileAtomicSync } from './write-file-atomic-sync.js';

/** The file name in the run directory. */
export const PROCESS_GROUPS_FILE = 'process-groups.json';

/** The JSON shape of `process-groups.json`. */
export interface ProcessGroupsFile {
  readonly version: 1;
  /** The pid of the runner that started the groups. */
  readonly runner_pid: number;
  /** Process group ids (the leaders' pids) of the commands running now. */
  readonly groups: readonly number[];
}

/** Records the process groups of a run's running commands (`HandlerRuntime.processGroups`). */
export interface ProcessGroupRecorder {
  /** Lists `pgid` in the run's `process-groups.json`; returns the function that removes it again. */
  record(pgid: number): () => void;
}

/** Options of {@link createProcessGroupRecorder}. */
export interface ProcessGroupRecorderOptions {
  /** The run directory (exists). */
  readonly logsRoot: string;
  /** The runner's pid. Default: `process.pid`. */
  readonly runnerPid?: number;
}

/** Creates the recorder of one run directory. Every change rewrites the file atomically; an empty list removes it. */
export function createProcessGroupRecorder(options: ProcessGroupRecorderOptions): ProcessGroupRecorder {
  const path = join(options.logsRoot, PROCESS_GROUPS_FILE);
  const runnerPid = options.runnerPid ?? process.pid;
  const groups = new Set<number>();
  const save = () => {
    if (groups.size === 0) {
      rmSync(path, { force: true });
      return;
    }
    const file: ProcessGroupsFile = { version: 1, runner_pid: runnerPid, groups: [...groups] };
    writeFileAtomicSync(path, `${JSON.stringify(file)}\n`, { fsync: false });
  };
  return {
    record(pgid) {
      groups.add(pgid);
      save();
      return () => {
        if (groups.delete(pgid)) save();
      };
    },
  };
}

/** Options of {@link endOrphanedProcessGroups}. */
export interface EndOrphanedProcessGroupsOptions {
  /** The run directory. */
  readonly logsRoot: string;
  /** Milliseconds between SIGTERM and SIGKILL. Default: 2000. */
  readonly graceMs?: number;
  /** Waits; the run's clock. */
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Ends the process groups a dead runner left in `logsRoot` (SIGTERM, then SIGKILL after `graceMs` for what is
 * still running) and removes the file. Groups of a runner that is still alive are left alone (it still owns them;
 * the run lock refuses a second runner). Returns the ids of the groups that were still running.
 */
export async function endOrphanedProcessGroups(options: EndOrphanedProcessGroupsOptions): Promise<number[]> {
  const path = join(options.logsRoot, PROCESS_GROUPS_FILE);
  let file: ProcessGroupsFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as ProcessGroupsFile;
  } catch {
    // Missing (nothing ran) or torn beyond use: there is nothing we can safely signal.
    return [];
  }
  if (file.runner_pid !== process.pid && runnerAlive(file.runner_pid)) return [];
  const running = (Array.isArray(file.groups) ? file.groups : []).filter(
    (pgid) => Number.isSafeInteger(pgid) && pgid > 1 && processGroupAlive(pgid),
  );
  for (const pgid of running) killProcessGroup(pgid, 'SIGTERM');
  const graceMs = options.graceMs ?? 2000;
  const pollMs = 20;
  for (let waitedMs = 0; waitedMs < graceMs; waitedMs += pollMs) {
    if (!running.some(processGroupAlive)) break;
    await options.sleep(pollMs);
  }
  for (const pgid of running) if (processGroupAlive(pgid)) killProcessGroup(pgid, 'SIGKILL');
  rmSync(path, { force: true });
  return running;
}

function runnerAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
