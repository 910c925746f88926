/** The linked worktrees of a repository, and their removal (`attractor clean`, a fan-in done with its branches). */
import { rm } from 'node:fs/promises';
import type { GitRunner } from './git-runner.js';

/** A linked worktree: its directory and the branch checked out there (none when detached). */
export interface ListedWorktree {
  readonly path: string;
  readonly branch?: string;
  /** Git reports it `prunable`: its directory is gone. */
  readonly prunable?: boolean;
}

/** The linked worktrees of the repository (the main worktree, which is never removed, left out). */
export async function listWorktrees(git: GitRunner): Promise<ListedWorktree[]> {
  const text = await git.text(['worktree', 'list', '--porcelain']);
  return text
    .split('\n\n')
    .slice(1)
    .map((block) => {
      const path = /^worktree (.+)$/m.exec(block)?.[1];
      const branch = /^branch refs\/heads\/(.+)$/m.exec(block)?.[1];
      const prunable = /^prunable\b/m.test(block);
      return path === undefined
        ? undefined
        : { path, ...(branch === undefined ? {} : { branch }), ...(prunable ? { prunable } : {}) };
    })
    .filter((worktree) => worktree !== undefined);
}

/** Removes a worktree; `own`: a directory the run made, deleted even when git no longer knows it as a worktree. */
export async function removeWorktree(git: GitRunner, path: string, own: boolean): Promise<void> {
  await git.run(['worktree', 'remove', '--force', '--force', path], { okExitCodes: [0, 128] });
  if (own) await rm(path, { recursive: true, force: true });
}
