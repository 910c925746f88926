/** Where a run's workspace lives on this machine (README "Workspaces", "Where and how much"). */
import { isAbsolute, join, resolve } from 'node:path';
import type { WorkspaceOpenRequest } from '@attractor/engine';
import { WorkspaceError } from './errors/workspace-error.js';

/** The directories of one run's workspace. */
export interface WorkspaceLocations {
  /** The run's worktree. */
  readonly worktree: string;
  /** Where the worktrees of its parallel branches go. */
  readonly branchRoot: string;
  /** The private repository of a copy. */
  readonly copyRepository: string;
  /**
   * The repository of runs that did not start in a checkout of this machine (from a shared repository, or picked up
   * from another machine): `<root>/repository.git`, shared by the runs under one root; without a root, the run's
   * own `workspace.git`.
   */
  readonly localRepository: string;
}

/**
 * The locations of a run's workspace: under `root` (`<root>/<run-id>`) when given, else in the run directory.
 * @throws {WorkspaceError} `invalid_setting` when there is no root and the run store is not a directory.
 */
export function locationsOf(request: WorkspaceOpenRequest, root: string | undefined): WorkspaceLocations {
  if (root !== undefined) {
    const base = join(resolve(root), request.runId);
    return {
      worktree: base,
      branchRoot: `${base}-branches`,
      copyRepository: `${base}.git`,
      localRepository: join(resolve(root), 'repository.git'),
    };
  }
  if (!isAbsolute(request.logsRoot)) {
    throw new WorkspaceError({
      reason: 'invalid_setting',
      message: `The run ${request.runId} is kept in ${request.logsRoot}, not in a directory: give the workspace provider a root directory for worktrees (root option, --workspace-root).`,
    });
  }
  return {
    worktree: join(request.logsRoot, 'workspace'),
    branchRoot: join(request.logsRoot, 'workspace-branches'),
    copyRepository: join(request.logsRoot, 'workspace.git'),
    localRepository: join(request.logsRoot, 'workspace.git'),
  };
}
