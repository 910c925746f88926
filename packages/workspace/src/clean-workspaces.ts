/**
 * Removes what finished or deleted runs left in a repository (README "Workspaces", `attractor clean`): the worktrees
 * of finished runs (their branches stay, so `diff`, `apply`, `fork` and `resume --from` still work), and the
 * worktrees and branches of runs whose run directory is gone.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { WorkspaceRecord } from '@attractor/engine';
import { findRepository } from './find-repository.js';
import { createGitRunner, type GitRunner } from './git-runner.js';
import { readGitWorkspaceRecord } from './git-workspace.js';

/** A run `cleanWorkspaces` is told about. */
export interface CleanableRun {
  readonly runId: string;
  /** Its checkpoint's workspace record, when it has one. */
  readonly record: WorkspaceRecord | undefined;
  /** It ended (success, fail, cancelled, restarted) and no runner holds it. */
  readonly finished: boolean;
}

/** Options of {@link cleanWorkspaces}. */
export interface CleanWorkspacesOptions {
  /** The runs that exist (of the runs directory). */
  readonly runs: readonly CleanableRun[];
  /**
   * A directory of the repository whose `attractor/*` branches and worktrees of runs not in `runs` are removed (the
   * current repository); nothing happens there when it is not inside a repository. Default: none.
   */
  readonly repository?: string;
  /** Also delete the branches of finished runs (their commits can then be garbage-collected). Default: false. */
  readonly branches?: boolean;
  /** List what would be removed without removing it. Default: false. */
  readonly dryRun?: boolean;
  /** The git binary. Default: `git`. */
  readonly gitPath?: string;
}

/** What {@link cleanWorkspaces} removed (or would remove). */
export interface CleanReport {
  readonly worktrees: readonly string[];
  readonly branches: readonly string[];
}

/** Cleans up (see the module comment). */
export async function cleanWorkspaces(options: CleanWorkspacesOptions): Promise<CleanReport> {
  const gitAt = (cwd: string) =>
    createGitRunner({ cwd, ...(options.gitPath === undefined ? {} : { gitPath: options.gitPath }) });
  const worktrees: string[] = [];
  const branches: string[] = [];
  const known = new Set(options.runs.map((run) => run.runId));
  for (const run of options.runs) {
    const record = readGitWorkspaceRecord(run.record);
    if (record === undefined || !run.finished || !existsSync(record.repository)) continue;
    const git = gitAt(record.repository);
    const listed = await listWorktrees(git);
    for (const worktree of listed) {
      if (worktree.branch !== record.ref && !worktree.branch?.startsWith(`${record.ref}@`)) continue;
      worktrees.push(worktree.path);
      // Only the directories the run made are deleted when git cannot remove them as worktrees.
      const own = worktree.path === record.worktree || worktree.path.startsWith(`${record.branch_root}/`);
      if (options.dryRun !== true) await removeWorktree(git, worktree.path, own);
    }
    if (options.branches === true) {
      const refs = await runBranches(git, run.runId);
      branches.push(...refs);
      if (options.dryRun !== true && refs.length > 0) await git.run(['branch', '-D', '-q', ...refs]);
    }
  }
  const repository =
    options.repository === undefined ? undefined : await findRepository(gitAt(options.repository));
  if (repository !== undefined) {
    const git = gitAt(repository.top);
    const listed = await listWorktrees(git);
    const orphans = (await runBranches(git)).filter((ref) => !known.has(runIdOf(ref)));
    for (const worktree of listed) {
      if (worktree.branch === undefined || !orphans.includes(worktree.branch)) continue;
      worktrees.push(worktree.path);
      if (options.dryRun !== true) await removeWorktree(git, worktree.path, false);
    }
    branches.push(...orphans);
    if (options.dryRun !== true) {
      await git.run(['worktree', 'prune']);
      if (orphans.length > 0) await git.run(['branch', '-D', '-q', ...orphans]);
    }
  }
  return { worktrees: [...new Set(worktrees)], branches: [...new Set(branches)] };
}

/** The run id of a run branch: `attractor/<run-id>` or a parallel branch's `attractor/<run-id>@<stage>/<branch>`. */
function runIdOf(ref: string): string {
  const name = ref.slice('attractor/'.length);
  const at = name.indexOf('@');
  return at < 0 ? name : name.slice(0, at);
}

/** The `attractor/*` branches of the repository (of one run, when `runId` is given). */
async function runBranches(git: GitRunner, runId?: string): Promise<string[]> {
  const refs = (await git.text(['for-each-ref', '--format=%(refname:short)', 'refs/heads/attractor/']))
    .split('\n')
    .filter((ref) => ref !== '');
  return runId === undefined ? refs : refs.filter((ref) => runIdOf(ref) === runId);
}

/** The linked worktrees of the repository (the main worktree, which is never removed, left out). */
async function listWorktrees(git: GitRunner): Promise<{ path: string; branch?: string }[]> {
  const text = await git.text(['worktree', 'list', '--porcelain']);
  return text
    .split('\n\n')
    .slice(1)
    .map((block) => {
      const path = /^worktree (.+)$/m.exec(block)?.[1];
      const branch = /^branch refs\/heads\/(.+)$/m.exec(block)?.[1];
      return path === undefined ? undefined : { path, ...(branch === undefined ? {} : { branch }) };
    })
    .filter((worktree) => worktree !== undefined);
}

/** Removes a worktree; `own`: a directory the run made, deleted even when git no longer knows it as a worktree. */
async function removeWorktree(git: GitRunner, path: string, own: boolean): Promise<void> {
  await git.run(['worktree', 'remove', '--force', '--force', path], { okExitCodes: [0, 128] });
  if (own) await rm(path, { recursive: true, force: true });
}
