/**
 * One change at a time to a repository's worktrees from this process. git does not guard worktree commands against
 * each other: `git worktree add` reads every other worktree's admin files (to refuse a branch checked out elsewhere)
 * and fails (`failed to read .git/worktrees/<id>/commondir`) on one that another `add` is still writing, and
 * `git worktree prune` removes an admin directory whose `gitdir` file is not written yet. The branches of a fan-out
 * open their worktrees at the same time, so every add, remove, prune and list of a repository's worktrees runs in
 * that repository's queue.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import PQueue from 'p-queue';
import type { GitRunner } from './git-runner.js';
import { linkedGitDir } from './linked-git-dir.js';

/** A queue per common git directory. */
const queues = new Map<string, PQueue>();

/**
 * Runs `task` when no other worktree change of the same repository (the one `git` runs in) is running in this
 * process, and returns what it returns (or throws what it throws).
 */
export async function withWorktreeLock<T>(git: GitRunner, task: () => Promise<T>): Promise<T> {
  const key = await commonDirOf(git);
  let queue = queues.get(key);
  if (queue === undefined) {
    queue = new PQueue({ concurrency: 1 });
    queues.set(key, queue);
  }
  try {
    return await queue.add(task);
  } finally {
    if (queue.size === 0 && queue.pending === 0) queues.delete(key);
  }
}

/**
 * The repository's common git directory (real path): read from the files when `git` runs at the top of a worktree
 * (its `.git` directory, or a linked worktree's `.git` file and `commondir`), so that a fan-out opening many worktrees
 * starts no extra git process; asked of git otherwise.
 */
async function commonDirOf(git: GitRunner): Promise<string> {
  const dir =
    commonDirFromFiles(git.cwd) ??
    resolve(git.cwd, await git.text(['rev-parse', '--git-common-dir']).catch(() => '.'));
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

function commonDirFromFiles(worktree: string): string | undefined {
  const dotGit = join(worktree, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
  } catch {
    return undefined;
  }
  const linked = linkedGitDir(worktree);
  if (linked === undefined) return undefined;
  try {
    return resolve(linked, readFileSync(join(linked, 'commondir'), 'utf8').trim());
  } catch {
    return undefined;
  }
}
