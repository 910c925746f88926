/**
 * Finds the run a child run directory belongs to: sub-pipeline (`subgraph`) and manager-loop nodes run their child
 * pipeline in `{stage dir}/child` (later attempts `child-2`, ...) inside the parent's run directory, and only the
 * top-level run, the one `attractor run` started, can be resumed.
 */
import { access } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CLI_OPTIONS_FILE } from '../run/backend-choice.js';

/** The directory name of a child run (see `freshChildDirectory` of `@attractor/handlers`). */
const CHILD_RUN_NAME = /^child(?:-\d+)?$/;

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The run directory `attractor resume` takes for the run in `logsRoot`: `undefined` when `logsRoot` is resumable
 * itself (it has `cli-options.json`) or is no child run (its name is not `child` / `child-N`); else the nearest
 * enclosing directory with `cli-options.json` (the top-level run, also for a child of a child), or `undefined` when
 * there is none (a child of a run started without the CLI).
 *
 * @param logsRoot - an absolute run directory.
 */
export async function findParentRun(logsRoot: string): Promise<string | undefined> {
  if (!CHILD_RUN_NAME.test(basename(logsRoot)) || (await exists(join(logsRoot, CLI_OPTIONS_FILE)))) {
    return undefined;
  }
  for (let dir = dirname(logsRoot); dir !== dirname(dir); dir = dirname(dir)) {
    if (await exists(join(dir, CLI_OPTIONS_FILE))) return dir;
  }
  return undefined;
}
