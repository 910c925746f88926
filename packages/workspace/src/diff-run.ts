/**
 * What a run, or one of its stages, changed (README "Workspaces", `attractor diff`): a git diff between commits of the
 * run's branch, read from the repository the workspace record names.
 */
import type { WorkspaceRecord } from '@attractor/engine';
import { WorkspaceError } from './errors/workspace-error.js';
import { createGitRunner } from './git-runner.js';
import { readGitWorkspaceRecord } from './git-workspace.js';

/** Options of {@link diffRun}. */
export interface DiffRunOptions {
  /** The run's workspace record (`checkpoint.workspace`). */
  readonly record: WorkspaceRecord | undefined;
  /**
   * A stage's commit (its `status.json` `commit`): the diff of that stage against its first parent. Default: the
   * whole run, from its start commit to its last.
   */
  readonly commit?: string;
  /** A `--stat` summary instead of the patch. Default: false. */
  readonly stat?: boolean;
  /** Colour the output as git does on a terminal. Default: false. */
  readonly color?: boolean;
  /** The git binary. Default: `git`. */
  readonly gitPath?: string;
}

/**
 * The diff of a run or of one stage commit, as text (empty when nothing changed).
 * @throws {WorkspaceError} `no_workspace` when the run works in place.
 */
export async function diffRun(options: DiffRunOptions): Promise<string> {
  const record = readGitWorkspaceRecord(options.record);
  if (record === undefined) {
    throw new WorkspaceError({
      reason: 'no_workspace',
      message:
        'The run works in place: it has no workspace whose commits show what it changed. Start runs with --workspace git (or copy) to record a commit per stage.',
    });
  }
  const git = createGitRunner({
    cwd: record.repository,
    ...(options.gitPath === undefined ? {} : { gitPath: options.gitPath }),
  });
  const range =
    options.commit === undefined ? [record.base, record.commit] : [`${options.commit}^1`, options.commit];
  return git.text([
    ...(options.color === true ? ['-c', 'color.diff=always'] : []),
    'diff',
    ...(options.stat === true ? ['--stat'] : ['--binary']),
    ...range,
  ]);
}
