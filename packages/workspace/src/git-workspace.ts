/**
 * A run's (or a parallel branch's) workspace: a git worktree on its own branch, a commit per stage that changed files,
 * branch worktrees for a fan-out and the merges of a fan-in (README "Workspaces"). Implements the engine's
 * `RunWorkspace` contract.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  OpenedWorkspace,
  RunWorkspace,
  StageCommit,
  StageCommitRequest,
  WorkspaceMergeBranch,
  WorkspaceMergeRequest,
  WorkspaceMergeResult,
  WorkspaceRecord,
} from '@attractor/engine';
import {
  findOversizedFiles,
  findOversizedPaths,
  listChangedFiles,
  notIgnored,
  pathspecsExcluding,
  type SkippedFile,
} from './changed-files.js';
import { GitCommandError } from './errors/git-command-error.js';
import { findLeftovers } from './find-leftovers.js';
import type { GitRunner } from './git-runner.js';
import { linkedGitDir } from './linked-git-dir.js';
import { listWorktrees, removeWorktree } from './list-worktrees.js';
import { type CommitSharing, nextBundleNumber, publishRunCommits } from './share-run-commits.js';
import { stageCommitMessage } from './stage-commit-message.js';
import { withWorktreeLock } from './worktree-lock.js';
import { startWorktreeWatcher, type WorktreeWatcher } from './worktree-watcher.js';

/** How a workspace is kept: a worktree of the user's repository, or of a private repository seeded with a copy. */
export type WorkspaceKind = 'git' | 'copy';

/** The fields of a workspace's checkpoint record (`checkpoint.workspace`). A type (not an interface) so that it is a `WorkspaceRecord`. */
export type GitWorkspaceRecord = {
  readonly mode: WorkspaceKind;
  /** The run the workspace belongs to. */
  readonly run_id: string;
  /** The commit after the last completed stage. */
  readonly commit: string;
  /** The branch the run commits to: `attractor/<run-id>`. */
  readonly ref: string;
  /** The worktree's top directory. */
  readonly worktree: string;
  /** The repository's common git directory (`.git` of the user's repository, or the copy's private one). */
  readonly repository: string;
  /** Where the stages work, relative to the worktree's top (`--workdir` inside a repository); `''` at the top. */
  readonly subdirectory: string;
  /** The commit the run started from (the base of its total diff). */
  readonly base: string;
  /** Where the worktrees of parallel branches go. */
  readonly branch_root: string;
  /** The author of the run's commits, `Name <email>` (a resume and a fork commit as the run did). */
  readonly author?: string;
};

/** Settings shared by a run's workspaces. */
export interface GitWorkspaceSettings {
  /** Creates a runner in a directory (with the run's identity). */
  readonly gitAt: (cwd: string) => GitRunner;
  /** Files larger than this are not committed. */
  readonly maxFileBytes: number;
  /** The author the runner commits as, `Name <email>` (recorded in the record). */
  readonly author: string;
}

/** Reads a record written by this package, or undefined when it is another provider's. */
export function readGitWorkspaceRecord(record: WorkspaceRecord | undefined): GitWorkspaceRecord | undefined {
  if (record === undefined || (record.mode !== 'git' && record.mode !== 'copy')) return undefined;
  const fields = ['ref', 'worktree', 'repository', 'subdirectory', 'base', 'branch_root'] as const;
  return fields.every((field) => typeof record[field] === 'string')
    ? (record as GitWorkspaceRecord)
    : undefined;
}

/** A worktree the run commits to (see the module comment). */
export class GitWorkspace implements RunWorkspace {
  readonly mode: WorkspaceKind;
  readonly workdir: string;
  readonly ref: string;
  readonly #record: Omit<GitWorkspaceRecord, 'commit'>;
  readonly #settings: GitWorkspaceSettings;
  readonly #git: GitRunner;
  /** The current commit (moved by stage commits and merges). */
  #commit: string;
  /** The commit the last `commitStage` reported: a merge between two stages moves `#commit` past it. */
  #reported: string;
  /** Sees whether a stage changed anything (see {@link GitWorkspace.watch}). */
  #watcher: WorktreeWatcher | undefined;
  /** Files left out of earlier commits for their size: left out of the next ones while they are too large. */
  #oversized = new Set<string>();
  #ownGitDir: string | undefined;

  /** Where the run's commits are published for other machines (the run's own workspace only). */
  readonly #sharing: CommitSharing | undefined;
  /** The last commit published (undefined: none yet, the next publication holds the whole history). */
  #published: string | undefined;
  #nextBundle: number | undefined;

  constructor(options: {
    record: GitWorkspaceRecord;
    settings: GitWorkspaceSettings;
    /** Publish the run's commits there after each stage commit (see share-run-commits.ts). */
    sharing?: CommitSharing;
    /** The commit already published (a resume), when any. */
    published?: string;
  }) {
    const { commit, ...rest } = options.record;
    this.#sharing =
      options.sharing?.remote === undefined && options.sharing?.store === undefined
        ? undefined
        : options.sharing;
    this.#published = options.published;
    this.#record = rest;
    this.#settings = options.settings;
    this.mode = rest.mode;
    this.ref = rest.ref;
    this.workdir = rest.subdirectory === '' ? rest.worktree : join(rest.worktree, rest.subdirectory);
    this.#git = options.settings.gitAt(rest.worktree);
    this.#commit = commit;
    this.#reported = commit;
  }

  record(): GitWorkspaceRecord {
    return { ...this.#record, commit: this.#commit };
  }

  /**
   * Starts watching the worktree (see worktree-watcher.ts), so that a stage that changed nothing costs no `git status`
   * scan. Without it (or when the system's limits refuse it), every stage asks git.
   */
  async watch(): Promise<void> {
    this.#watcher ??= await startWorktreeWatcher({ worktree: this.#record.worktree, git: this.#git });
  }

  async commitStage(request: StageCommitRequest): Promise<StageCommit> {
    const seen = await this.#watcher?.settle();
    let skipped: SkippedFile[] = [];
    if (seen === undefined || seen.uncertain || seen.gitChanged) {
      // Ask git what changed (no watcher, or it cannot vouch for what it saw).
      const changed = await listChangedFiles(this.#git);
      if (changed.length > 0) {
        skipped = await findOversizedFiles({
          worktree: this.#record.worktree,
          files: changed,
          maxFileBytes: this.#settings.maxFileBytes,
        });
        this.#oversized = new Set(skipped.map((file) => file.path));
        await this.#commitChanges(request, [...this.#oversized]);
      }
    } else if (seen.touched.size > 0) {
      // Only what the stage touched can be newly oversized; files left out before stay out while they are.
      const worktree = this.#record.worktree;
      const maxFileBytes = this.#settings.maxFileBytes;
      const touched = await findOversizedPaths({ worktree, paths: seen.touched, maxFileBytes });
      const earlier = await findOversizedPaths({
        worktree,
        paths: [...this.#oversized].filter((path) => !touched.some((file) => file.path === path)),
        maxFileBytes,
      });
      // Ignored files are left out by git anyway (and naming them in a pathspec is refused).
      const excluded = await notIgnored(
        this.#git,
        [...touched, ...earlier].map((file) => file.path),
      );
      this.#oversized = new Set(excluded);
      skipped = touched.filter((file) => this.#oversized.has(file.path));
      await this.#commitChanges(request, excluded);
    }
    if (seen !== undefined && this.#watcher !== undefined) {
      if (seen.uncertain) await this.#watcher.rebuild();
      else if (seen.touched.size > 0 || seen.gitChanged) await this.#watcher.refresh(seen.touched);
    }
    const moved = this.#commit !== this.#reported;
    this.#reported = this.#commit;
    await this.publish();
    return {
      ...(moved ? { commit: this.#commit } : {}),
      ...(skipped.length === 0 ? {} : { skipped }),
    };
  }

  /**
   * `git add -A` (leaving `excluded` out) and one commit when anything is staged: `git commit` itself says when
   * nothing is (exit code 1), so a stage that changed files costs what a plain `git add -A && git commit` costs.
   */
  async #commitChanges(request: StageCommitRequest, excluded: readonly string[]): Promise<void> {
    await this.#git.run(['add', '-A', ...pathspecsExcluding(excluded)]);
    // A merge a fan-in left conflicted is committed as it stands, conflict markers and all (a merge commit).
    const merging = existsSync(join(await this.#gitDir(), 'MERGE_HEAD'));
    // With core.abbrev=40 the summary line (`[<branch> <id>] <subject>`) names the whole commit id: no rev-parse
    // afterwards (one git process less per stage).
    const result = await this.#git.run(
      [
        '-c',
        'core.abbrev=40',
        'commit',
        '--no-verify',
        '--no-status',
        ...(merging ? ['--allow-empty'] : []),
        '-F',
        '-',
      ],
      { input: stageCommitMessage(request), okExitCodes: [0, 1] },
    );
    if (result.exitCode === 1) {
      if (/nothing (added )?to commit|no changes added to commit/.test(result.stdout)) return;
      throw new GitCommandError({
        args: ['commit'],
        cwd: this.#git.cwd,
        exitCode: 1,
        stderr: result.stderr || result.stdout,
      });
    }
    this.#commit =
      /^\[[^\]]* ([0-9a-f]{40,64})\]/m.exec(result.stdout)?.[1] ??
      (await this.#git.text(['rev-parse', 'HEAD']));
  }

  /**
   * Publishes the run's branch where other machines find it (the shared repository, the run store's bundles), when
   * it moved since the last publication. Before the checkpoint naming the commit is written.
   */
  async publish(): Promise<void> {
    if (this.#sharing === undefined || this.#published === this.#commit) return;
    if (this.#sharing.store !== undefined) this.#nextBundle ??= await nextBundleNumber(this.#sharing.store);
    await publishRunCommits({
      git: this.#git,
      sharing: this.#sharing,
      ref: this.ref,
      commit: this.#commit,
      ...(this.#published === undefined ? {} : { since: this.#published }),
      bundleNumber: this.#nextBundle ?? 1,
    });
    if (this.#nextBundle !== undefined) this.#nextBundle += 1;
    this.#published = this.#commit;
  }

  async branch(request: { readonly stagePath: string; readonly branchId: string }): Promise<OpenedWorkspace> {
    const ref = `${runRefOf(this.#record)}@${request.stagePath.replaceAll('/', '.')}/${request.branchId}`;
    const worktree = join(this.#record.branch_root, request.stagePath, request.branchId);
    // An earlier attempt's worktree of this branch (the parallel stage runs again after a resume): keep what it held.
    const found = existsSync(join(worktree, '.git'))
      ? await findLeftovers({
          git: this.#settings.gitAt(worktree),
          commit: this.#commit,
          maxFileBytes: this.#settings.maxFileBytes,
        }).catch(() => undefined)
      : undefined;
    await addWorktree({
      git: this.#git,
      worktree,
      ref,
      commit: this.#commit,
    });
    const workspace = new GitWorkspace({
      record: { ...this.#record, ref, worktree, commit: this.#commit },
      settings: this.#settings,
    });
    return found?.leftovers === undefined ? { workspace } : { workspace, leftovers: found.leftovers };
  }

  async merge(request: WorkspaceMergeRequest): Promise<WorkspaceMergeResult> {
    try {
      return await this.#merge(request);
    } finally {
      await this.#removeBranchWorktrees(request.branches);
    }
  }

  /**
   * The fan-in is done with the branches of its fan-out: their worktrees (one checkout each) go, their branches stay
   * for inspection (`attractor clean --branches` removes those). Every branch ref of a fan-out starts with
   * `<run branch>@<fan-out>/`.
   */
  async #removeBranchWorktrees(branches: readonly WorkspaceMergeBranch[]): Promise<void> {
    const prefixes = new Set(
      branches.flatMap((branch) =>
        branch.ref?.includes('@') === true ? [branch.ref.slice(0, branch.ref.lastIndexOf('/') + 1)] : [],
      ),
    );
    if (prefixes.size === 0) return;
    await withWorktreeLock(this.#git, async () => {
      for (const worktree of await listWorktrees(this.#git)) {
        const branch = worktree.branch;
        if (branch === undefined || ![...prefixes].some((prefix) => branch.startsWith(prefix))) continue;
        await removeWorktree(
          this.#git,
          worktree.path,
          worktree.path.startsWith(`${this.#record.branch_root}/`),
        );
      }
    });
  }

  async #merge(request: WorkspaceMergeRequest): Promise<WorkspaceMergeResult> {
    const merged: string[] = [];
    for (const [index, branch] of request.branches.entries()) {
      if (branch.commit === this.#commit) {
        merged.push(branch.id);
        continue;
      }
      const result = await this.#git.run(
        [
          'merge',
          '--no-ff',
          '--no-edit',
          '-m',
          `attractor: ${request.nodeId} merges branch ${branch.id}${branch.ref === undefined ? '' : ` (${branch.ref})`}`,
          branch.commit,
        ],
        { okExitCodes: [0, 1] },
      );
      if (result.exitCode !== 0) {
        const paths = (
          await this.#git.text(['diff', '--name-only', '-z', '--diff-filter=U'], { okExitCodes: [0] })
        )
          .split('\0')
          .filter((path) => path !== '');
        if (paths.length === 0) {
          // Not a content conflict (git refused for another reason): a fault, not a fan-in failure.
          await this.#git.run(['merge', '--abort'], { okExitCodes: [0, 128] });
          await this.#git.run(['merge', '--no-ff', '--no-edit', branch.commit]);
        }
        return {
          kind: 'conflict',
          branch,
          merged,
          notMerged: request.branches.slice(index + 1).map((other) => other.id),
          paths,
        };
      }
      this.#commit = await this.#git.text(['rev-parse', 'HEAD']);
      merged.push(branch.id);
    }
    return { kind: 'merged', commit: this.#commit, merged };
  }

  async close(): Promise<void> {
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  /** The worktree's own git directory (`<repository>/worktrees/<name>`), read once. */
  async #gitDir(): Promise<string> {
    this.#ownGitDir ??=
      linkedGitDir(this.#record.worktree) ?? (await this.#git.text(['rev-parse', '--absolute-git-dir']));
    return this.#ownGitDir;
  }
}

/** The run's own branch (`attractor/<run-id>`), also seen from a parallel branch's workspace. */
function runRefOf(record: Omit<GitWorkspaceRecord, 'commit'>): string {
  const at = record.ref.indexOf('@');
  return at < 0 ? record.ref : record.ref.slice(0, at);
}

/**
 * Adds a worktree at `worktree` on branch `ref` at `commit`; a worktree an earlier attempt left there is removed
 * first and the branch reset (`-B`).
 */
export async function addWorktree(options: {
  readonly git: GitRunner;
  readonly worktree: string;
  readonly ref: string;
  readonly commit: string;
  /** `--no-checkout`: the caller fills the worktree (a copy). */
  readonly noCheckout?: boolean;
}): Promise<void> {
  const { git, worktree } = options;
  await withWorktreeLock(git, async () => {
    for (let attempt = 1; ; attempt += 1) {
      if (existsSync(worktree)) {
        await git.run(['worktree', 'remove', '--force', '--force', worktree], { okExitCodes: [0, 128] });
        await rm(worktree, { recursive: true, force: true });
        await git.run(['worktree', 'prune']);
      }
      try {
        await git.run([
          'worktree',
          'add',
          '-q',
          '-f',
          ...(options.noCheckout === true ? ['--no-checkout'] : []),
          '-B',
          options.ref,
          worktree,
          options.commit,
        ]);
        return;
      } catch (error) {
        // Another process changing this repository's worktrees at the same time (see worktree-lock.ts): again.
        const racing =
          GitCommandError.isInstance(error) &&
          /worktrees\/[^/\s]+\/(commondir|gitdir|HEAD)/.test(error.stderr);
        if (!racing || attempt === 3) throw error;
      }
    }
  });
}
