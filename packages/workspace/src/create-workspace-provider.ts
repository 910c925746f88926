/**
 * The workspace provider a run is given (`runPipeline({ workspace })`, README "Workspaces"): opens a new run's
 * worktree, reopens a resumed run's at its checkpoint's commit (keeping what an interrupted stage left as a patch),
 * and starts a fork's from its source stage's commit.
 */

import { join, resolve } from 'node:path';
import type {
  OpenedWorkspace,
  WorkspaceOpenRequest,
  WorkspaceProvider,
  WorkspaceRecord,
} from '@attractor/engine';
import { type ContinueOptions, forkWorkspace, resumeWorkspace } from './continue-run-workspace.js';
import { WorkspaceError } from './errors/workspace-error.js';
import { findRepository } from './find-repository.js';
import {
  createGitRunner,
  DEFAULT_IDENTITY,
  formatGitIdentity,
  type GitIdentity,
  type GitRunner,
  parseGitIdentity,
} from './git-runner.js';
import {
  GitWorkspace,
  type GitWorkspaceRecord,
  type GitWorkspaceSettings,
  readGitWorkspaceRecord,
} from './git-workspace.js';
import { readWorkspaceDiff } from './read-workspace-diff.js';
import type { CommitSharing } from './share-run-commits.js';
import { startCopy, startGit, startRemote } from './start-run-workspace.js';
import { locationsOf } from './workspace-locations.js';
import { parseWorkspaceMode, type WorkspaceMode } from './workspace-mode.js';

/** Files larger than this are not committed unless configured: 10 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Options of {@link createWorkspaceProvider}. */
export interface WorkspaceProviderOptions {
  /**
   * The mode of new runs, over the graph's `workspace` attribute (the CLI's `--workspace`): `git`, `copy`,
   * `in-place`, or `auto` (`git` inside a git repository, else `in-place`).
   */
  readonly mode?: WorkspaceMode;
  /** The mode of new runs whose graph sets no `workspace` attribute (a config file, a server setting). Default: `auto`. */
  readonly defaultMode?: WorkspaceMode;
  /**
   * Where worktrees go: `<root>/<run-id>` (branches under `<root>/<run-id>-branches/`). Default: `workspace` in the
   * run directory (branches in `workspace-branches`); required when the run store is not a directory.
   */
  readonly root?: string;
  /** Author and committer of the run's commits. Default: `Attractor <attractor@localhost>`. */
  readonly identity?: GitIdentity;
  /** Changed files larger than this many bytes are not committed (a warning names them). Default: 10 MiB. */
  readonly maxFileBytes?: number;
  /**
   * Directories never captured into a run's start commit nor copied (absolute). Always left out: the run directory,
   * the worktree root, and `.attractor` at the top of the repository or the copied directory.
   */
  readonly exclude?: readonly string[];
  /** The git binary. Default: `git` on the PATH. */
  readonly gitPath?: string;
  /**
   * Watch the run's worktree (inotify, one watch per directory git does not ignore) to know that a stage changed
   * nothing without a `git status` scan of the whole tree. `false`: ask git after every stage (for file systems
   * whose changes inotify does not report, e.g. network file systems). Default: true.
   */
  readonly watch?: boolean;
  /**
   * A shared repository (a path or URL every machine running the runs can push to and fetch from; README
   * "Workspaces", "Across machines"): each run's branch is pushed there after every stage commit, a run picked up on
   * another machine is fetched from there, and a new run whose working directory is in no repository starts from its
   * `remoteRef`. Default: none.
   */
  readonly remote?: string;
  /** What a run started from `remote` starts from: a branch or ref of the shared repository. Default: `HEAD`. */
  readonly remoteRef?: string;
  /**
   * Keep the run's commits in its run store as git bundles (one per stage commit; the first holds the start commit and
   * its history), so that another machine can resume the run with nothing but the store (PostgreSQL). A resume reads
   * the bundles a run has whatever this says. Default: false.
   */
  readonly bundles?: boolean;
}

/**
 * Creates the workspace provider (README "Workspaces"):
 * - `git`: a `git worktree` on branch `attractor/<run-id>`, started from HEAD plus the uncommitted and untracked (not
 *   ignored) changes of the working directory, captured as a start commit through a temporary index: the user's
 *   checkout, index and stash are never modified.
 * - `copy`: a copy of the working directory (reflinks where the filesystem has them) in a worktree of a private
 *   repository kept in the run directory, whose commits are the per-stage snapshots.
 * - `in-place`: no workspace; the run works in the working directory, as without a provider.
 *
 * @throws {WorkspaceError} (from `open`, so the run rejects) `not_a_repository` when `git` is asked outside a repository.
 * @example
 * const result = await runPipeline({ graph, registry, logsRoot, workdir: '.', workspace: createWorkspaceProvider() });
 */
export function createWorkspaceProvider(options: WorkspaceProviderOptions = {}): WorkspaceProvider {
  const identity = options.identity;
  const gitAt = (cwd: string): GitRunner =>
    createGitRunner({
      cwd,
      ...(identity === undefined ? {} : { identity }),
      ...(options.gitPath === undefined ? {} : { gitPath: options.gitPath }),
    });
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const author = formatGitIdentity(identity ?? DEFAULT_IDENTITY);
  const settings: GitWorkspaceSettings = { gitAt, maxFileBytes, author };
  /** A resumed or forked run commits as it started. */
  const settingsOf = (record: GitWorkspaceRecord): GitWorkspaceSettings => {
    const recorded = record.author === undefined ? undefined : parseGitIdentity(record.author);
    if (recorded === undefined || record.author === author) return settings;
    return {
      gitAt: (cwd) =>
        createGitRunner({
          cwd,
          identity: recorded,
          ...(options.gitPath === undefined ? {} : { gitPath: options.gitPath }),
        }),
      maxFileBytes,
      author: record.author!,
    };
  };
  const watch = options.watch !== false;
  return {
    async open(request) {
      const opened = await openWorkspace(request);
      if (opened?.workspace instanceof GitWorkspace) {
        // Watched from now on: a stage that changes nothing then costs no scan of the worktree.
        if (watch) await opened.workspace.watch();
        // Shared before the first checkpoint names its commit.
        await opened.workspace.publish();
      }
      return opened;
    },
    diff: (request) =>
      readWorkspaceDiff({
        ...request,
        ...(options.remote === undefined ? {} : { remote: options.remote }),
        ...(options.root === undefined
          ? {}
          : { cacheRepository: join(resolve(options.root), 'repository.git') }),
        ...(options.gitPath === undefined ? {} : { gitPath: options.gitPath }),
      }),
  };

  async function openWorkspace(request: WorkspaceOpenRequest): Promise<OpenedWorkspace | undefined> {
    const record = request.record === undefined ? undefined : readGitWorkspaceRecord(request.record);
    if (request.record !== undefined && record === undefined) {
      throw new WorkspaceError({
        reason: 'unsupported',
        message: `The run's checkpoint records a "${String(request.record.mode)}" workspace this provider does not know.`,
      });
    }
    const sharing: CommitSharing = {
      ...(options.remote === undefined ? {} : { remote: options.remote }),
      ...(options.bundles === true ? { store: request.store } : {}),
    };
    if (record !== undefined) {
      const continuing: ContinueOptions = {
        request,
        locations: () => locationsOf(request, options.root),
        settings: settingsOf(record),
        ...(options.remote === undefined ? {} : { remote: options.remote }),
        sharing,
      };
      return record.run_id === request.runId
        ? resumeWorkspace(continuing, record)
        : forkWorkspace(continuing, record);
    }
    // A run with a checkpoint but no record works in place (it started so, or before workspaces existed).
    if (request.resumed) return undefined;
    const mode = chooseMode(request, options);
    if (mode === 'in-place') return undefined;
    const locations = locationsOf(request, options.root);
    const exclude = options.exclude ?? [];
    if (mode === 'copy') return startCopy(request, locations, settings, exclude, sharing);
    const repository = await findRepository(gitAt(request.workdir));
    if (repository !== undefined) return startGit(request, repository, locations, settings, exclude, sharing);
    if (options.remote !== undefined) {
      return startRemote({
        request,
        locations,
        settings,
        remote: options.remote,
        remoteRef: options.remoteRef ?? 'HEAD',
        sharing,
      });
    }
    if (mode === 'auto') return undefined;
    throw new WorkspaceError({
      reason: 'not_a_repository',
      message: `The git workspace needs a git repository, and ${request.workdir} is not inside one. Use --workspace copy (a copy the run owns) or --workspace in-place, run in a repository, or give a shared repository to start from (--workspace-remote).`,
    });
  }
}

/** The mode a new run uses: the forced one, else the graph's `workspace` attribute, else the default. */
function chooseMode(request: WorkspaceOpenRequest, options: WorkspaceProviderOptions): WorkspaceMode {
  if (options.mode !== undefined) return options.mode;
  const attribute = request.graph.attributes.workspace?.value;
  if (attribute !== undefined) {
    const parsed = parseWorkspaceMode(attribute);
    if (parsed !== undefined) return parsed;
  }
  return options.defaultMode ?? 'auto';
}

/** The record of a run's workspace as this package wrote it, or undefined (none, or another provider's). */
export function workspaceRecordOf(record: WorkspaceRecord | undefined): GitWorkspaceRecord | undefined {
  return readGitWorkspaceRecord(record);
}
