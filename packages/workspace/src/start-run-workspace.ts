/**
 * A new run's workspace (README "Workspaces"): a worktree of the repository the run's working directory is in
 * (`git`), a copy with a private repository (`copy`), or a worktree of a shared repository's commit when the working
 * directory is in no repository and the provider has a `remote` (a worker's run).
 */
import { constants } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { OpenedWorkspace, WorkspaceOpenRequest } from '@attractor/engine';
import { captureWorkingTree } from './capture-working-tree.js';
import { findOversizedFiles, listChangedFiles } from './changed-files.js';
import { WorkspaceError } from './errors/workspace-error.js';
import type { FoundRepository } from './find-repository.js';
import type { GitRunner } from './git-runner.js';
import { addWorktree, GitWorkspace, type GitWorkspaceSettings } from './git-workspace.js';
import type { CommitSharing } from './share-run-commits.js';
import type { WorkspaceLocations } from './workspace-locations.js';

/** Paths relative to `top` of the directories a capture or copy leaves out (those inside `top` only). */
function excludedBelow(top: string, paths: readonly string[]): string[] {
  return paths
    .map((path) => relative(top, path))
    .filter((path) => path !== '' && path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path))
    .map((path) => path.split(sep).join('/'));
}

export async function startGit(
  request: WorkspaceOpenRequest,
  repository: FoundRepository,
  locations: WorkspaceLocations,
  settings: GitWorkspaceSettings,
  exclude: readonly string[],
  sharing: CommitSharing,
): Promise<OpenedWorkspace> {
  const git = settings.gitAt(repository.top);
  const workdir = await realpath(request.workdir);
  const subdirectory = relative(repository.top, workdir).split(sep).join('/');
  // HEAD and its tree in one process; an unborn branch (no commit yet) has neither.
  const [head, headTree] = (
    await git.text(['rev-parse', '-q', 'HEAD^{commit}', 'HEAD^{tree}'], { okExitCodes: [0] }).catch(() => '')
  ).split('\n');
  const captured = await captureWorkingTree({
    git,
    indexPath: repository.indexPath,
    exclude: excludedBelow(repository.top, [
      ...exclude,
      request.logsRoot,
      locations.worktree,
      locations.branchRoot,
      join(repository.top, '.attractor'),
    ]),
  });
  let start: string;
  try {
    start =
      head !== undefined && head !== '' && headTree === captured.tree
        ? head
        : await git.text(
            [
              'commit-tree',
              captured.tree,
              ...(head === undefined || head === '' ? [] : ['-p', head]),
              '-F',
              '-',
            ],
            {
              input: `attractor: start of run ${request.runId}\n\nThe uncommitted and untracked files of ${workdir} when the run started.\n\nAttractor-Run: ${request.runId}\n`,
            },
          );
  } finally {
    await captured.dispose();
  }
  const ref = await freeRunRef(git, request.runId);
  await mkdir(join(locations.worktree, '..'), { recursive: true });
  await addWorktree({ git, worktree: locations.worktree, ref, commit: start });
  const workspace = startedWorkspace({
    mode: 'git',
    runId: request.runId,
    start,
    ref,
    repository: repository.commonDir,
    subdirectory: subdirectory === '.' ? '' : subdirectory,
    locations,
    settings,
    sharing,
  });
  await mkdir(workspace.workdir, { recursive: true });
  return { workspace };
}

export async function startCopy(
  request: WorkspaceOpenRequest,
  locations: WorkspaceLocations,
  settings: GitWorkspaceSettings,
  exclude: readonly string[],
  sharing: CommitSharing,
): Promise<OpenedWorkspace> {
  const source = await realpath(request.workdir);
  const repository = locations.copyRepository;
  await rm(repository, { recursive: true, force: true });
  await mkdir(repository, { recursive: true });
  const bare = settings.gitAt(repository);
  await bare.run(['init', '-q', '--bare', '-b', 'attractor-root', repository]);
  // An empty root commit to add the worktree at; the copy's files then make the start commit on top of it.
  const empty = await mkdtemp(join(tmpdir(), 'attractor-empty-'));
  let root: string;
  try {
    const emptyTree = await bare.text(['write-tree'], { env: { GIT_INDEX_FILE: join(empty, 'index') } });
    root = await bare.text(['commit-tree', emptyTree, '-m', `attractor: root of run ${request.runId}`]);
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
  const ref = `attractor/${request.runId}`;
  await addWorktree({ git: bare, worktree: locations.worktree, ref, commit: root, noCheckout: true });
  const skip = new Set(
    [
      ...exclude,
      request.logsRoot,
      locations.worktree,
      locations.branchRoot,
      repository,
      join(source, '.attractor'),
      join(source, '.git'),
    ].map((path) => resolve(path)),
  );
  await copyTree(source, locations.worktree, skip);
  const git = settings.gitAt(locations.worktree);
  const changed = await listChangedFiles(git);
  const oversized = await findOversizedFiles({
    worktree: locations.worktree,
    files: changed,
    maxFileBytes: settings.maxFileBytes,
  });
  await git.run(['add', '-A', '--', ':/', ...oversized.map((file) => `:(top,literal,exclude)${file.path}`)]);
  await git.run(['commit', '-q', '--no-verify', '--allow-empty', '-F', '-'], {
    input: `attractor: start of run ${request.runId}\n\nA copy of ${source}.\n\nAttractor-Run: ${request.runId}\n`,
  });
  const start = await git.text(['rev-parse', 'HEAD']);
  return {
    workspace: startedWorkspace({
      mode: 'copy',
      runId: request.runId,
      start,
      ref,
      repository,
      subdirectory: '',
      locations,
      settings,
      sharing,
    }),
  };
}

/**
 * Copies the directory `from` into `to` (reflinks where the filesystem has them), leaving out the absolute paths in
 * `skip`. A directory holding a skipped path (the run directory inside the copied one) is copied entry by entry.
 */
async function copyTree(from: string, to: string, skip: ReadonlySet<string>): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (skip.has(source)) continue;
    const target = join(to, entry.name);
    if (entry.isDirectory() && [...skip].some((path) => path.startsWith(`${source}${sep}`))) {
      await copyTree(source, target, skip);
      continue;
    }
    await cp(source, target, {
      recursive: true,
      force: true,
      mode: constants.COPYFILE_FICLONE,
      verbatimSymlinks: true,
      filter: (path) => !skip.has(resolve(path)),
    });
  }
}

/**
 * The run's branch: `attractor/<run-id>`, or `attractor/<run-id>-2`, `-3`, ... when another run of the same id (a run
 * directory of the same name elsewhere) has that branch in this repository. An existing branch is never reset.
 */
export async function freeRunRef(git: GitRunner, runId: string): Promise<string> {
  const taken = new Set(
    (await git.text(['for-each-ref', '--format=%(refname:short)', 'refs/heads/attractor/'])).split('\n'),
  );
  let ref = `attractor/${runId}`;
  for (let n = 2; taken.has(ref); n += 1) ref = `attractor/${runId}-${n}`;
  return ref;
}

/**
 * A run whose working directory is in no repository, from the shared repository `remote`: its `remoteRef` (default
 * its `HEAD`) fetched into the local repository (`WorkspaceLocations.localRepository`), a worktree of it on
 * `attractor/<run-id>`. The run works at the worktree's top.
 * @throws {WorkspaceError} `unavailable` when the remote cannot be fetched from.
 */
export async function startRemote(options: {
  readonly request: WorkspaceOpenRequest;
  readonly locations: WorkspaceLocations;
  readonly settings: GitWorkspaceSettings;
  readonly remote: string;
  readonly remoteRef: string;
  readonly sharing: CommitSharing;
}): Promise<OpenedWorkspace> {
  const { request, locations, settings, remote } = options;
  const repository = locations.localRepository;
  const git = await openLocalRepository(settings, repository);
  const incoming = `refs/attractor-incoming/start/${request.runId}`;
  const fetched = await git.run(
    ['fetch', '-q', '--no-write-fetch-head', '--no-tags', remote, `+${options.remoteRef}:${incoming}`],
    { okExitCodes: [0, 1, 128] },
  );
  if (fetched.exitCode !== 0) {
    throw new WorkspaceError({
      reason: 'unavailable',
      message: `Cannot start the run's workspace from ${options.remoteRef} of the shared repository ${remote} (--workspace-remote): ${fetched.stderr.trim() || `git fetch exited with code ${fetched.exitCode}`}. Check that this machine can fetch from it and that it has that branch.`,
    });
  }
  const start = await git.text(['rev-parse', '--verify', `${incoming}^{commit}`]);
  const ref = await freeRunRef(git, request.runId);
  await mkdir(dirname(locations.worktree), { recursive: true });
  await addWorktree({ git, worktree: locations.worktree, ref, commit: start });
  await git.run(['update-ref', '-d', incoming]);
  return {
    workspace: startedWorkspace({
      mode: 'git',
      runId: request.runId,
      start,
      ref,
      repository,
      subdirectory: '',
      locations,
      settings,
      sharing: options.sharing,
    }),
  };
}

/** A bare repository at `path` (created when missing), for runs that did not start in a checkout of this machine. */
export async function openLocalRepository(settings: GitWorkspaceSettings, path: string): Promise<GitRunner> {
  await mkdir(path, { recursive: true });
  const git = settings.gitAt(path);
  // Idempotent: two executors may start runs at once.
  await git.run(['init', '-q', '--bare', path]);
  return git;
}

/** The workspace of a run that starts at `start` on `ref`, in the worktree `locations.worktree` of `repository`. */
export function startedWorkspace(options: {
  readonly mode: 'git' | 'copy';
  readonly runId: string;
  readonly start: string;
  readonly ref: string;
  readonly repository: string;
  readonly subdirectory: string;
  readonly locations: WorkspaceLocations;
  readonly settings: GitWorkspaceSettings;
  readonly sharing: CommitSharing;
}): GitWorkspace {
  return new GitWorkspace({
    record: {
      mode: options.mode,
      run_id: options.runId,
      commit: options.start,
      ref: options.ref,
      worktree: options.locations.worktree,
      repository: options.repository,
      subdirectory: options.subdirectory,
      base: options.start,
      branch_root: options.locations.branchRoot,
      author: options.settings.author,
    },
    settings: options.settings,
    sharing: options.sharing,
  });
}
