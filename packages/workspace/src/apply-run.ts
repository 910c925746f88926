/**
 * Brings a run's result into the user's checkout (README "Workspaces", `attractor apply`): as a merge of its branch,
 * as the run's changes staged for one commit (squash), or as those changes in the files only (patch). Refuses,
 * changing nothing, when the checkout has changes the result would overwrite or conflict with.
 */
import type { WorkspaceRecord } from '@attractor/engine';
import { GitCommandError } from './errors/git-command-error.js';
import { WorkspaceError } from './errors/workspace-error.js';
import { findRepository } from './find-repository.js';
import { createGitRunner, type GitRunner } from './git-runner.js';
import { readGitWorkspaceRecord } from './git-workspace.js';

/** How `apply` brings a run's result in. */
export type ApplyMethod = 'merge' | 'squash' | 'patch';

/** Options of {@link applyRun}. */
export interface ApplyRunOptions {
  /** The run's workspace record (`checkpoint.workspace`). */
  readonly record: WorkspaceRecord | undefined;
  /** The checkout (or, for a `copy` run, the directory) to apply to: usually the run's `--workdir`. */
  readonly target: string;
  /**
   * `merge` (default): `git merge --no-ff` of the run's branch, committed with your git identity; `squash`: the run's
   * changes staged in your index, not committed; `patch`: the run's changes written to your files only.
   */
  readonly method?: ApplyMethod;
  /** The git binary. Default: `git`. */
  readonly gitPath?: string;
}

/** What {@link applyRun} did. */
export interface ApplyRunResult {
  readonly method: ApplyMethod;
  /** The files the run changed (from its start commit to its last). */
  readonly files: readonly string[];
  /** The merge commit (`merge` only). */
  readonly commit?: string;
  /**
   * True when the target already had the run's changes (its branch merged, or its changes in the files, and for
   * `squash` in the index too): nothing was changed.
   */
  readonly alreadyApplied?: boolean;
}

/**
 * Applies the run whose workspace `record` describes to `target` (see the module comment).
 * @throws {WorkspaceError} `no_workspace` for a run working in place; `unsupported` for `merge`/`squash` of a `copy`
 *   run or a target that is not a repository; `conflict` (nothing changed) when the target's changes are in the way,
 *   naming the files. A target that has the run's changes already is no conflict: `alreadyApplied`.
 */
export async function applyRun(options: ApplyRunOptions): Promise<ApplyRunResult> {
  const record = readGitWorkspaceRecord(options.record);
  if (record === undefined) {
    throw new WorkspaceError({
      reason: 'no_workspace',
      message: 'The run works in place: its changes are already in its working directory.',
    });
  }
  const method = options.method ?? 'merge';
  const runner = (cwd: string, identity?: 'user') =>
    createGitRunner({
      cwd,
      ...(identity === undefined ? {} : { identity }),
      ...(options.gitPath === undefined ? {} : { gitPath: options.gitPath }),
    });
  const source = runner(record.repository);
  const files = (await source.text(['diff', '--name-only', '-z', record.base, record.commit]))
    .split('\0')
    .filter((path) => path !== '');
  const repository = await findRepository(runner(options.target));
  if (method !== 'patch' && (record.mode === 'copy' || repository === undefined)) {
    throw new WorkspaceError({
      reason: 'unsupported',
      message: `${options.target} is not a git repository${record.mode === 'copy' ? ' (the run worked in a copy of it)' : ''}: apply the run's changes with --patch.`,
    });
  }
  if (files.length === 0) return { method, files };
  // The patch's paths are relative to the worktree's top: apply it at the target's top (the copied directory itself).
  const top = repository?.top ?? options.target;
  const target = runner(top, 'user');
  if (method === 'merge') {
    const merged = await target.run(['merge-base', '--is-ancestor', record.commit, 'HEAD'], {
      okExitCodes: [0, 1, 128],
    });
    if (merged.exitCode === 0) return { method, files, alreadyApplied: true };
    return { method, files, commit: await merge(target, record.commit, record.ref, record.base) };
  }
  const patch = `${await source.text(['diff', '--binary', record.base, record.commit])}\n`;
  const flags = method === 'squash' ? ['--index'] : [];
  const check = await target.run(['apply', '--check', ...flags, '-'], { input: patch, okExitCodes: [0, 1] });
  if (check.exitCode !== 0) {
    // A patch that does not apply may be there already (merged, or applied before): then there is nothing to do, and
    // no change of the user's is in the way.
    const reverse = await target.run(['apply', '--check', '--reverse', ...flags, '-'], {
      input: patch,
      okExitCodes: [0, 1],
    });
    if (reverse.exitCode === 0) return { method, files, alreadyApplied: true };
    const paths = [...check.stderr.matchAll(/^error: (?:patch failed: )?([^:\n]+)(?::\d+)?:/gm)].map(
      (match) => match[1]!,
    );
    throw new WorkspaceError({
      reason: 'conflict',
      paths: [...new Set(paths)],
      message: `Cannot apply the run's changes to ${top}: ${paths.length === 0 ? check.stderr.trim() : `your files ${[...new Set(paths)].join(', ')} have changes the run's changes do not apply to`}. Commit or stash them, or apply with --merge to resolve conflicts. Nothing was changed.`,
    });
  }
  await target.run(['apply', ...flags, '-'], { input: patch });
  return { method, files };
}

/** `git merge --no-ff` of the run's last commit, refusing (and leaving the checkout as it was) on any obstacle. */
async function merge(git: GitRunner, commit: string, ref: string, base: string): Promise<string> {
  const result = await git.run(
    ['merge', '--no-ff', '--no-edit', '-m', `Merge ${ref} (attractor run)`, commit],
    { okExitCodes: [0, 1, 2, 128] },
  );
  if (result.exitCode === 0) return git.text(['rev-parse', 'HEAD']);
  const output = `${result.stdout}\n${result.stderr}`;
  const overwritten = /would be overwritten by merge:\n((?:\t.+\n)+)/.exec(output);
  if (overwritten !== null) {
    const paths = overwritten[1]!
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const head = await git.text(['rev-parse', 'HEAD']).catch(() => '');
    const startedDirty =
      (await git.text(['rev-parse', `${base}^1`]).catch(() => '')) === head && base !== head;
    throw new WorkspaceError({
      reason: 'conflict',
      paths,
      message: `Cannot merge ${ref}: your uncommitted changes to ${paths.join(', ')} would be overwritten.${startedDirty ? ' The run started from your uncommitted changes (its first commit holds them).' : ''} Commit or stash them first, or apply with --patch. Nothing was changed.`,
    });
  }
  const conflicted = (await git.text(['diff', '--name-only', '-z', '--diff-filter=U']))
    .split('\0')
    .filter((path) => path !== '');
  if (conflicted.length > 0) {
    await git.run(['merge', '--abort']);
    throw new WorkspaceError({
      reason: 'conflict',
      paths: conflicted,
      message: `Cannot merge ${ref}: it conflicts with your branch in ${conflicted.join(', ')}. Nothing was changed; merge it yourself (git merge ${ref}) to resolve the conflicts, or apply with --patch.`,
    });
  }
  throw new GitCommandError({
    args: ['merge', commit],
    cwd: git.cwd,
    exitCode: result.exitCode,
    stderr: result.stderr,
  });
}
