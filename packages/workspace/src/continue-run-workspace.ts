/**
 * The workspace of a run that already has one (README "Workspaces", "Resume and fork", "Across machines"): a resume
 * reopens the run's worktree at the checkpoint's commit, on this machine or, when the run's commits are not here (it
 * started on another worker), from the shared repository or the run store's bundles; a fork starts a worktree of its
 * own at its source stage's commit.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { OpenedWorkspace, RunStore, WorkspaceOpenRequest } from '@attractor/engine';
import { WorkspaceError } from './errors/workspace-error.js';
import { findLeftovers, leftoversBetween } from './find-leftovers.js';
import type { GitRunner } from './git-runner.js';
import {
  addWorktree,
  GitWorkspace,
  type GitWorkspaceRecord,
  type GitWorkspaceSettings,
} from './git-workspace.js';
import { type CommitSharing, fetchRunCommits, hasCommit } from './share-run-commits.js';
import { freeRunRef, openLocalRepository, startedWorkspace } from './start-run-workspace.js';
import type { WorkspaceLocations } from './workspace-locations.js';

/** What {@link resumeWorkspace} and {@link forkWorkspace} work with. */
export interface ContinueOptions {
  readonly request: WorkspaceOpenRequest;
  /** The run's locations on this machine (computed when needed: a local reopen needs none). */
  readonly locations: () => WorkspaceLocations;
  readonly settings: GitWorkspaceSettings;
  /** The shared repository commits are fetched from, when any. */
  readonly remote?: string;
  /** Where the workspace publishes its commits. */
  readonly sharing: CommitSharing;
}

/**
 * A resumed run's own workspace at the checkpoint's commit: its worktree here, put back at that commit (what it held
 * past it is returned as leftovers, kept as the interrupted stage's patch; of a run that ended in failure, it is kept as
 * a commit on the checkpoint's commit instead, see `WorkspaceOpenRequest.failed`); a worktree that is gone is added
 * again from the branch; a run whose commits are not on this machine is fetched and gets a worktree here.
 * @throws {WorkspaceError} `unavailable` when the commit is neither here, nor on the remote, nor in a bundle.
 */
export async function resumeWorkspace(
  options: ContinueOptions,
  record: GitWorkspaceRecord,
): Promise<OpenedWorkspace> {
  const { settings } = options;
  if (existsSync(record.repository) && (await hasCommit(settings.gitAt(record.repository), record.commit))) {
    return reopen(options, record);
  }
  const locations = options.locations();
  const path =
    record.mode === 'copy'
      ? locations.copyRepository
      : existsSync(record.repository)
        ? record.repository
        : locations.localRepository;
  const git = await openLocalRepository(settings, path);
  const found = await fetchOrExplain({
    options,
    git,
    record,
    store: options.request.store,
    what: `resume run ${options.request.runId}`,
  });
  // Commits past the checkpoint (a stage committed, then its machine died before the checkpoint): kept as a patch.
  const leftovers =
    found.tip === undefined || found.tip === record.commit
      ? undefined
      : await leftoversBetween(git, record.commit, found.tip);
  await mkdir(dirname(locations.worktree), { recursive: true });
  await addWorktree({ git, worktree: locations.worktree, ref: record.ref, commit: record.commit });
  await dropIncoming(git, record.ref);
  const workspace = new GitWorkspace({
    record: {
      ...record,
      repository: path,
      worktree: locations.worktree,
      branch_root: locations.branchRoot,
    },
    settings,
    sharing: options.sharing,
    published: record.commit,
  });
  return leftovers === undefined ? { workspace } : { workspace, leftovers };
}

/**
 * A fork's first start (or a `loop_restart` continuation): a worktree of this run on `attractor/<run-id>` at the
 * source record's commit. A copy gets a private repository of its own (a local clone of the source's, or fetched).
 * @throws {WorkspaceError} `unavailable` when the source's commit is neither here, nor on the remote, nor in a bundle.
 */
export async function forkWorkspace(
  options: ContinueOptions,
  source: GitWorkspaceRecord,
): Promise<OpenedWorkspace> {
  const { request, settings } = options;
  const locations = options.locations();
  const here =
    existsSync(source.repository) && (await hasCommit(settings.gitAt(source.repository), source.commit));
  let repository = here
    ? source.repository
    : existsSync(source.repository)
      ? source.repository
      : locations.localRepository;
  if (source.mode === 'copy') {
    repository = locations.copyRepository;
    await rm(repository, { recursive: true, force: true });
    await mkdir(dirname(repository), { recursive: true });
    if (here) {
      await settings
        .gitAt(dirname(repository))
        .run(['clone', '-q', '--bare', '--local', '--no-hardlinks', source.repository, repository]);
    }
  }
  let git = settings.gitAt(repository);
  if (!here) {
    git = await openLocalRepository(settings, repository);
    await fetchOrExplain({
      options,
      git,
      record: source,
      ...(request.sourceStore === undefined ? {} : { store: request.sourceStore }),
      what: `fork run ${source.run_id}`,
    });
  }
  const ref = await freeRunRef(git, request.runId);
  await mkdir(dirname(locations.worktree), { recursive: true });
  await addWorktree({ git, worktree: locations.worktree, ref, commit: source.commit });
  if (!here) await dropIncoming(git, source.ref);
  const workspace = startedWorkspace({
    mode: source.mode,
    runId: request.runId,
    start: source.commit,
    ref,
    repository,
    subdirectory: source.subdirectory,
    locations,
    settings,
    sharing: options.sharing,
  });
  await mkdir(workspace.workdir, { recursive: true });
  return { workspace };
}

/** The run's worktree on this machine, put back at the checkpoint's commit (see {@link resumeWorkspace}). */
async function reopen(options: ContinueOptions, record: GitWorkspaceRecord): Promise<OpenedWorkspace> {
  const { settings } = options;
  const git = settings.gitAt(record.worktree);
  let leftovers: OpenedWorkspace['leftovers'];
  if (!existsSync(join(record.worktree, '.git'))) {
    const repo = settings.gitAt(record.repository);
    const tip = await repo
      .text(['rev-parse', '--verify', '-q', `refs/heads/${record.ref}`], { okExitCodes: [0] })
      .catch(() => undefined);
    if (tip !== undefined && tip !== record.commit)
      leftovers = await leftoversBetween(repo, record.commit, tip);
    await mkdir(join(record.worktree, '..'), { recursive: true });
    await addWorktree({ git: repo, worktree: record.worktree, ref: record.ref, commit: record.commit });
  } else {
    const found = await findLeftovers({ git, commit: record.commit, maxFileBytes: settings.maxFileBytes });
    const oversized = found.oversized;
    if (
      options.request.failed === true &&
      found.leftovers !== undefined &&
      (await changedSinceOnBranch(git, record, options.request.runId))
    ) {
      // The run ended in failure with every stage's changes committed: these were made since (a fix). They stay.
      const commit = await commitChangesSince({
        git,
        record,
        runId: options.request.runId,
        stage: options.request.interruptedStage,
        exclude: oversized.map((file) => file.path),
      });
      const workspace = new GitWorkspace({
        record: { ...record, commit },
        settings,
        sharing: options.sharing,
        published: record.commit,
      });
      // Published before a checkpoint names it, as a stage's commit is.
      await workspace.publish();
      return { workspace, kept: { commit, files: found.leftovers.files } };
    }
    leftovers = found.leftovers;
    await git.run(['checkout', '-q', '-f', '-B', record.ref, record.commit]);
    await git.run(['clean', '-f', '-d', '-q', ...oversized.flatMap((file) => ['-e', `/${file.path}`])]);
  }
  const workspace = new GitWorkspace({
    record,
    settings,
    sharing: options.sharing,
    published: record.commit,
  });
  return leftovers === undefined ? { workspace } : { workspace, leftovers };
}

/** The subject of the commit {@link commitChangesSince} makes. */
const keptSubject = (runId: string) => `attractor: changes made while run ${runId} was stopped`;

/**
 * Whether what the worktree holds past the checkpoint's commit was made on top of it, on the run's branch (or a
 * detached `HEAD`) — a fix — and not by checking out another branch or an older commit (that would undo the run's
 * stages), nor left by an earlier resume that kept a fix and then died (its stage's partial files are no fix): then
 * the leftovers are kept as a patch, as an interrupted stage's are.
 */
async function changedSinceOnBranch(
  git: GitRunner,
  record: GitWorkspaceRecord,
  runId: string,
): Promise<boolean> {
  const branch = await git.run(['symbolic-ref', '-q', 'HEAD'], { okExitCodes: [0, 1] });
  if (branch.exitCode === 0 && branch.stdout.trim() !== `refs/heads/${record.ref}`) return false;
  const descends = await git.run(['merge-base', '--is-ancestor', record.commit, 'HEAD'], {
    okExitCodes: [0, 1, 128],
  });
  if (descends.exitCode !== 0) return false;
  const subjects = await git.text(['log', '--format=%s', `${record.commit}..HEAD`]);
  return !subjects.split('\n').includes(keptSubject(runId));
}

/**
 * Commits what the worktree holds (tracked and untracked files, not ignored ones, not `exclude`) as one commit on the
 * checkpoint's commit, on the run's branch, whatever the branch held past it; returns the commit.
 */
async function commitChangesSince(input: {
  readonly git: GitRunner;
  readonly record: GitWorkspaceRecord;
  readonly runId: string;
  readonly stage: string | undefined;
  readonly exclude: readonly string[];
}): Promise<string> {
  const { git, record } = input;
  // The branch is put at the checkpoint's commit without touching the files; then everything they hold is staged.
  await git.run(['symbolic-ref', 'HEAD', `refs/heads/${record.ref}`]);
  await git.run(['reset', '-q', '--soft', record.commit]);
  await git.run(['add', '-A', '--', ':/', ...input.exclude.map((path) => `:(top,literal,exclude)${path}`)]);
  await git.run(['commit', '-q', '--no-verify', '--allow-empty', '-F', '-'], {
    input: `${keptSubject(input.runId)}\n\nKept by its resume${input.stage === undefined ? '' : ` at stage ${input.stage}`}, which runs on them.\n\nAttractor-Run: ${input.runId}\n`,
  });
  return git.text(['rev-parse', 'HEAD']);
}

/**
 * Fetches a record's commits (see `fetchRunCommits`).
 * @throws {WorkspaceError} `unavailable` naming what was tried and how to make it work.
 */
async function fetchOrExplain(input: {
  readonly options: ContinueOptions;
  readonly git: GitRunner;
  readonly record: GitWorkspaceRecord;
  readonly store?: RunStore;
  readonly what: string;
}): Promise<{ readonly tip?: string }> {
  const { options, record } = input;
  const found = await fetchRunCommits({
    git: input.git,
    sharing: {
      ...(options.remote === undefined ? {} : { remote: options.remote }),
      ...(input.store === undefined ? {} : { store: input.store }),
    },
    ref: record.ref,
    commit: record.commit,
  });
  if (found.found) return found.tip === undefined ? {} : { tip: found.tip };
  throw new WorkspaceError({
    reason: 'unavailable',
    message: `Cannot ${input.what} here: its workspace's commit ${record.commit.slice(0, 12)} (branch ${record.ref}) is not in ${record.repository} on this machine${options.remote === undefined ? '' : `, nor on the shared repository ${options.remote}`}, and the run store holds no bundle with it. A run that moves between machines needs its commits shared: give every worker the same --workspace-remote (a repository they all push to and fetch from), or keep bundles in the run store (what workers do without a remote).`,
  });
}

/** Removes the ref a fetch from the remote left (the commits are on the run's branch now). */
async function dropIncoming(git: GitRunner, ref: string): Promise<void> {
  await git.run(['update-ref', '-d', `refs/attractor-incoming/${ref}`], { okExitCodes: [0, 1] });
}
