/**
 * Removes what finished or deleted runs left in a repository (README "Workspaces", `attractor clean`): the worktrees
 * of finished runs (their branches stay, so `diff`, `apply`, `fork` and `resume --from` still work), and the
 * worktrees and branches of runs whose run directory is gone. A branch whose run directory cannot be located is
 * never removed: it is reported as kept.
 */
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { WorkspaceRecord } from '@attractor/engine';
import { findRepository } from './find-repository.js';
import { createGitRunner, type GitRunner } from './git-runner.js';
import { readGitWorkspaceRecord } from './git-workspace.js';
import { listWorktrees, removeWorktree } from './list-worktrees.js';

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
   * A directory of a repository (the current one) whose `attractor/*` branches of runs not in `runs` are looked at,
   * besides the repositories of `runs`; ignored when it is not inside a repository. Such a branch is removed (with
   * its worktree) when its run directory is known to be gone: its worktree was `<run directory>/workspace` (or under
   * `<run directory>/workspace-branches/`) and that run directory no longer exists, or it has no such worktree and
   * `runs` has a run of the same repository (the runs directory of that repository was given). Otherwise it is kept
   * and listed in {@link CleanReport.kept}. Default: none.
   */
  readonly repository?: string;
  /**
   * Other runs directories, where a run branch's run may live (`<directory>/<run id>`): a branch without a worktree
   * whose run directory is there is kept, whatever `runs` holds (e.g. the default `.attractor/runs` when another runs
   * directory is cleaned). Default: none.
   */
  readonly otherRunsDirectories?: readonly string[];
  /**
   * Look at the worktrees and branches of `runs` only: the branches of other runs are neither removed nor listed as
   * kept, and `repository` is not looked at (what `attractor purge` does for the runs it removed, with `branches`).
   * Default: false.
   */
  readonly onlyRuns?: boolean;
  /** Also delete the branches of finished runs (their commits can then be garbage-collected). Default: false. */
  readonly branches?: boolean;
  /** List what would be removed without removing it. Default: false. */
  readonly dryRun?: boolean;
  /** The git binary. Default: `git`. */
  readonly gitPath?: string;
}

/** A run branch `cleanWorkspaces` kept because its run is not among the runs it was given. */
export interface KeptBranch {
  readonly branch: string;
  /** The run directory it belongs to (it exists, in another runs directory); none when it could not be located. */
  readonly runDirectory?: string;
}

/** What {@link cleanWorkspaces} removed (or would remove), and the branches of unknown runs it kept. */
export interface CleanReport {
  readonly worktrees: readonly string[];
  readonly branches: readonly string[];
  readonly kept: readonly KeptBranch[];
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
  const kept: KeptBranch[] = [];
  if (options.onlyRuns === true) return { worktrees: [...new Set(worktrees)], branches, kept };
  // Real paths: the same repository is looked at once, whichever way its records spell it.
  const runRepositories = new Set(
    options.runs.flatMap((run) => {
      const repository = readGitWorkspaceRecord(run.record)?.repository;
      return repository === undefined || !existsSync(repository) ? [] : [realpathSync(repository)];
    }),
  );
  const current =
    options.repository === undefined ? undefined : await findRepository(gitAt(options.repository));
  const repositories = new Set([
    ...(current === undefined ? [] : [realpathSync(current.commonDir)]),
    ...runRepositories,
  ]);
  for (const repository of repositories) {
    const git = gitAt(repository);
    const listed = await listWorktrees(git);
    const unknown = (await runBranches(git)).filter((ref) => !known.has(runIdOf(ref)));
    const orphans: string[] = [];
    for (const runId of new Set(unknown.map(runIdOf))) {
      const refs = unknown.filter((ref) => runIdOf(ref) === runId);
      const directories = listed
        .filter((worktree) => worktree.branch !== undefined && refs.includes(worktree.branch))
        .flatMap((worktree) => runDirectoryOf(worktree.path) ?? []);
      const alive =
        directories.find((directory) => existsSync(directory)) ??
        (directories.length > 0
          ? undefined
          : (options.otherRunsDirectories ?? [])
              .map((runsDirectory) => join(runsDirectory, runId))
              .find((directory) => existsSync(directory)));
      if (alive !== undefined) kept.push(...refs.map((branch) => ({ branch, runDirectory: alive })));
      else if (directories.length > 0 || runRepositories.has(repository)) orphans.push(...refs);
      else kept.push(...refs.map((branch) => ({ branch })));
    }
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
  return { worktrees: [...new Set(worktrees)], branches: [...new Set(branches)], kept };
}

/**
 * The run directory a run's worktree was made in: `<run directory>/workspace`, or a parallel branch's under
 * `<run directory>/workspace-branches/`; undefined for a worktree under a workspace root (`--workspace-root`).
 */
function runDirectoryOf(worktree: string): string | undefined {
  if (basename(worktree) === 'workspace') return dirname(worktree);
  const at = worktree.indexOf(`${sep}workspace-branches${sep}`);
  return at < 0 ? undefined : worktree.slice(0, at);
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
