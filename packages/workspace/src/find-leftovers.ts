/**
 * What a worktree holds past a commit (README "Workspaces"): the files an interrupted stage left, and commits made
 * after the checkpoint was written, as one binary patch. Resume keeps it as the stage's `interrupted-changes.patch`
 * before it puts the worktree back.
 */
import type { OpenedWorkspace } from '@attractor/engine';
import { captureWorkingTree } from './capture-working-tree.js';
import { findOversizedFiles, listChangedFiles, type SkippedFile } from './changed-files.js';
import type { GitRunner } from './git-runner.js';

/** The patch and files {@link findLeftovers} found, and the oversized files it left out (never removed). */
export interface Leftovers {
  readonly leftovers?: NonNullable<OpenedWorkspace['leftovers']>;
  readonly oversized: readonly SkippedFile[];
}

/**
 * The difference between `commit` and the worktree `git` runs in (tracked and untracked files, not ignored ones, not
 * those over `maxFileBytes`), or no `leftovers` when there is none.
 */
export async function findLeftovers(options: {
  readonly git: GitRunner;
  readonly commit: string;
  readonly maxFileBytes: number;
}): Promise<Leftovers> {
  const { git, commit } = options;
  const changed = await listChangedFiles(git);
  const oversized = await findOversizedFiles({
    worktree: git.cwd,
    files: changed,
    maxFileBytes: options.maxFileBytes,
  });
  const head = await git.text(['rev-parse', 'HEAD']);
  if (changed.length === 0 && head === commit) return { oversized };
  const captured = await captureWorkingTree({ git, exclude: oversized.map((file) => file.path) });
  try {
    const patch = await git.text(['diff', '--cached', '--binary', commit], { env: captured.withIndex });
    if (patch === '') return { oversized };
    const files = (
      await git.text(['diff', '--cached', '--name-only', '-z', commit], { env: captured.withIndex })
    )
      .split('\0')
      .filter((path) => path !== '');
    return { leftovers: { patch: `${patch}\n`, files }, oversized };
  } finally {
    await captured.dispose();
  }
}

/** The difference between two commits as leftovers (a worktree that is gone, its branch past the checkpoint). */
export async function leftoversBetween(
  git: GitRunner,
  from: string,
  to: string,
): Promise<OpenedWorkspace['leftovers'] | undefined> {
  const patch = await git.text(['diff', '--binary', from, to]);
  if (patch === '') return undefined;
  const files = (await git.text(['diff', '--name-only', '-z', from, to]))
    .split('\0')
    .filter((path) => path !== '');
  return { patch: `${patch}\n`, files };
}
