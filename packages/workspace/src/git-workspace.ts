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
  WorkspaceMergeRequest,
  WorkspaceMergeResult,
  WorkspaceRecord,
} from '@attractor/engine';
import { findOversizedFiles, listChangedFiles, pathspecsExcluding } from './changed-files.js';
import { findLeftovers } from './find-leftovers.js';
import type { GitRunner } from './git-runner.js';
import { stageCommitMessage } from './stage-commit-message.js';

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

  constructor(options: { record: GitWorkspaceRecord; settings: GitWorkspaceSettings }) {
    const { commit, ...rest } = options.record;
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

  async commitStage(request: StageCommitRequest): Promise<StageCommit> {
    const changed = await listChangedFiles(this.#git);
    let skipped: { path: string; reason: string }[] = [];
    if (changed.length > 0) {
      skipped = await findOversizedFiles({
        worktree: this.#record.worktree,
        files: changed,
        maxFileBytes: this.#settings.maxFileBytes,
      });
      await this.#git.run(['add', '-A', ...pathspecsExcluding(skipped.map((file) => file.path))]);
      const staged =
        skipped.length === 0 ||
        (await this.#git.run(['diff', '--cached', '--quiet'], { okExitCodes: [0, 1] })).exitCode === 1;
      // A merge a fan-in left conflicted is committed as it stands, conflict markers and all (a merge commit).
      if (staged || existsSync(await this.#gitPath('MERGE_HEAD'))) {
        // With core.abbrev=40 the summary line (`[<branch> <id>] <subject>`) names the whole commit id: no
        // rev-parse afterwards (one git process less per stage).
        const summary = await this.#git.text(
          ['-c', 'core.abbrev=40', 'commit', '--no-verify', '--allow-empty', '--no-status', '-F', '-'],
          { input: stageCommitMessage(request) },
        );
        this.#commit =
          /^\[[^\]]* ([0-9a-f]{40,64})\]/m.exec(summary)?.[1] ??
          (await this.#git.text(['rev-parse', 'HEAD']));
      }
    }
    const moved = this.#commit !== this.#reported;
    this.#reported = this.#commit;
    return {
      ...(moved ? { commit: this.#commit } : {}),
      ...(skipped.length === 0 ? {} : { skipped }),
    };
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

  async close(): Promise<void> {}

  async #gitPath(name: string): Promise<string> {
    return this.#git.text(['rev-parse', '--path-format=absolute', '--git-path', name]);
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
  if (existsSync(worktree)) {
    await git.run(['worktree', 'remove', '--force', '--force', worktree], { okExitCodes: [0, 128] });
    await rm(worktree, { recursive: true, force: true });
    await git.run(['worktree', 'prune']);
  }
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
}
