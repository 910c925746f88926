/**
 * The workspace contract (README "Workspaces"): where a run's stages change files, and how each stage's changes are
 * recorded. The engine only calls it; `@attractor/workspace` implements it with git worktrees. Without a
 * {@link WorkspaceProvider} a run works in its working directory in place.
 */
import type { Graph } from '@attractor/graph';
import type { JsonValue } from './json-value.js';
import type { OutcomeStatus } from './outcome.js';
import type { RunStore } from './run-store.js';

/**
 * A workspace's position, recorded in every checkpoint (`checkpoint.workspace`): enough for a provider to reopen it
 * on resume (at `commit`) or to start a fork's workspace from it. JSON; the engine reads none of it.
 */
export interface WorkspaceRecord {
  /** How the workspace is kept, e.g. `git` or `copy`. */
  readonly mode: string;
  /** The run the workspace belongs to: a fork's first start sees its source's record. */
  readonly run_id: string;
  /** The revision after the last completed stage (a git commit id). */
  readonly commit: string;
  /** Whatever else the provider keeps (branch, worktree path, repository). */
  readonly [key: string]: JsonValue;
}

/** What {@link WorkspaceProvider.open} is asked for. */
export interface WorkspaceOpenRequest {
  /** The run id (the run directory's name). */
  readonly runId: string;
  /** The run's location (its run directory with the file store). */
  readonly logsRoot: string;
  /** The working directory the run was given (`--workdir`): what a new workspace starts from. */
  readonly workdir: string;
  readonly graph: Graph;
  /** The run already has a checkpoint: a resume or a fork. */
  readonly resumed: boolean;
  /**
   * The checkpoint's workspace record, when it has one: the run's own (a resume: reopen at its commit) or a fork's
   * source run's (`run_id` differs: start a workspace of this run at its commit).
   */
  readonly record?: WorkspaceRecord;
  /** On resume: the stage path of the stage that was running or about to run, whose leftovers the patch keeps. */
  readonly interruptedStage?: string;
  /**
   * On resume: the run had ended in failure (its checkpoint says `fail`). Every stage commits its changes before the
   * run records it, so what the workspace holds past the checkpoint's commit was made after the run stopped (a fix, by
   * hand): a provider keeps it, committed, and returns it as {@link OpenedWorkspace.kept}, instead of a patch.
   */
  readonly failed?: boolean;
  readonly store: RunStore;
  /**
   * A fork's first start: the store of the run it forks (its `origin`), where a provider may find what the source
   * run kept of its workspace (e.g. its commits as bundles, when the source ran on another machine).
   */
  readonly sourceStore?: RunStore;
  readonly abortSignal: AbortSignal;
}

/** What {@link WorkspaceProvider.open} returns for a run that gets a workspace. */
export interface OpenedWorkspace {
  readonly workspace: RunWorkspace;
  /**
   * On resume: the changes found in the workspace past the checkpoint's commit (left by an interrupted stage), as a
   * binary git patch, and the files it touches. The engine keeps it as `interrupted-changes.patch` of the
   * interrupted stage; the workspace is already back at the checkpoint's commit.
   */
  readonly leftovers?: { readonly patch: string; readonly files: readonly string[] };
  /**
   * On resume of a run that ended in failure ({@link WorkspaceOpenRequest.failed}): the changes made in the workspace
   * after the run stopped, kept as one commit on the checkpoint's commit, which the resumed stage starts from.
   */
  readonly kept?: { readonly commit: string; readonly files: readonly string[] };
}

/**
 * Opens the workspace of a run before its walk starts (a new run, a resume, a fork's first start). Returns
 * undefined to run in the working directory in place. Given to `runPipeline` as `workspace`.
 */
export interface WorkspaceProvider {
  open(request: WorkspaceOpenRequest): Promise<OpenedWorkspace | undefined>;
  /**
   * What a run, or one of its stages, changed (the server's `GET /pipelines/{id}/diff` and `/stage-diff`), from the
   * run's checkpoint record. Optional: a provider without it shows no diffs.
   */
  diff?(request: WorkspaceDiffRequest): Promise<WorkspaceDiff>;
}

/** What {@link WorkspaceProvider.diff} is asked for. */
export interface WorkspaceDiffRequest {
  /** The run's workspace record (`checkpoint.workspace`). */
  readonly record: WorkspaceRecord;
  /** A stage's commit (its `status.json` `commit`): what that stage changed. Default: the whole run. */
  readonly commit?: string;
  /** The run's store: where a run another machine executed may keep its commits (bundles). */
  readonly store?: RunStore;
  /** The patch is cut after this many characters (`truncated` says so). Default: 1,000,000. */
  readonly maxPatchChars?: number;
}

/** One changed file of a {@link WorkspaceDiff}. */
export interface WorkspaceFileChange {
  /** The path after the change (`/`-separated, relative to the worktree's top). */
  readonly path: string;
  /** The path before a rename or copy. */
  readonly previousPath?: string;
  readonly status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type-changed';
  /** Lines added; undefined for a binary file. */
  readonly additions?: number;
  /** Lines deleted; undefined for a binary file. */
  readonly deletions?: number;
  readonly binary: boolean;
}

/** What a run or a stage changed: its files with lines added and deleted, and the patch. */
export interface WorkspaceDiff {
  /** The commit the diff starts from (the run's start, or the stage commit's first parent). */
  readonly from: string;
  /** The commit it ends at (the run's last, or the stage's). */
  readonly to: string;
  readonly files: readonly WorkspaceFileChange[];
  /** Lines added and deleted in all text files. */
  readonly additions: number;
  readonly deletions: number;
  /** The unified diff (binary files as `Binary files ... differ`). */
  readonly patch: string;
  /** The patch was cut at `maxPatchChars`. */
  readonly truncated: boolean;
}

/** A completed stage, as {@link RunWorkspace.commitStage} records it. */
export interface StageCommitRequest {
  readonly nodeId: string;
  /** The stage path (`review`, `fan/branches/b1/lint`). */
  readonly stagePath: string;
  readonly visit: number;
  /** The attempt whose outcome was recorded. */
  readonly attempt: number;
  readonly status: OutcomeStatus;
  /** The run id, for the commit's trailers. */
  readonly runId: string;
}

/** What {@link RunWorkspace.commitStage} did. */
export interface StageCommit {
  /** The new commit, or undefined when the stage changed no file. */
  readonly commit?: string;
  /** Files the stage changed that were not committed, with why (over the size limit), for a warning. */
  readonly skipped?: readonly { readonly path: string; readonly reason: string }[];
}

/** One parallel branch's result to bring into a workspace (see {@link RunWorkspace.merge}). */
export interface WorkspaceMergeBranch {
  /** The branch id (`parallel.results[].branch`). */
  readonly id: string;
  /** The branch's last commit. */
  readonly commit: string;
  /** Its git branch, for messages. */
  readonly ref?: string;
}

/** Options of {@link RunWorkspace.merge}. */
export interface WorkspaceMergeRequest {
  /** Merged one after the other, in this order. */
  readonly branches: readonly WorkspaceMergeBranch[];
  /** The node doing the merge (the fan-in), for commit messages. */
  readonly nodeId: string;
}

/** The result of {@link RunWorkspace.merge}. */
export type WorkspaceMergeResult =
  | { readonly kind: 'merged'; readonly commit: string; readonly merged: readonly string[] }
  | {
      readonly kind: 'conflict';
      /** The branch whose merge conflicted. */
      readonly branch: WorkspaceMergeBranch;
      /** Branches merged before it. */
      readonly merged: readonly string[];
      /** Branches not tried after it. */
      readonly notMerged: readonly string[];
      /** The conflicting paths, relative to the workspace. */
      readonly paths: readonly string[];
    };

/**
 * A run's (or a parallel branch's) workspace: a directory whose changes are recorded per stage. Implemented by
 * `@attractor/workspace`.
 */
export interface RunWorkspace {
  /** `git` or `copy`. */
  readonly mode: string;
  /** The directory stages work in (tool cwd, agent root): `runtime.workdir`. */
  readonly workdir: string;
  /** The git branch the workspace commits to, when it has one (`attractor/<run-id>`). */
  readonly ref?: string;
  /** The record for the next checkpoint (its `commit` follows every stage commit). */
  record(): WorkspaceRecord;
  /** Records a completed stage's changes: one commit when it changed files, none otherwise. */
  commitStage(request: StageCommitRequest): Promise<StageCommit>;
  /**
   * A workspace of its own for one parallel branch (`runtime.runBranch`), starting at this workspace's current
   * commit. An earlier attempt's workspace of the same branch starts over; what it held is returned as `leftovers`
   * (the engine keeps them as `branches/<branch>/interrupted-changes.patch` of the parallel stage).
   */
  branch(request: { readonly stagePath: string; readonly branchId: string }): Promise<OpenedWorkspace>;
  /**
   * Brings parallel branches' commits into this workspace, one merge each. A conflict stops there, leaving the
   * conflicted files (with conflict markers) in the workspace for a resolver stage.
   */
  merge(request: WorkspaceMergeRequest): Promise<WorkspaceMergeResult>;
  /** Releases what the workspace holds in this process; the directory stays. */
  close(): Promise<void>;
}

/** What a handler sees of the run's workspace (`runtime.workspace`): the fan-in merges branches with it. */
export type HandlerWorkspace = Pick<RunWorkspace, 'mode' | 'workdir' | 'ref' | 'merge'>;

/** The workspace fields of a `pipeline.started` event: which workspace the run uses. */
export interface WorkspaceSummary {
  readonly mode: string;
  readonly workdir: string;
  readonly branch?: string;
  readonly commit: string;
}
