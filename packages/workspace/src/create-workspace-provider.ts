/**
 * The workspace provider a run is given (`runPipeline({ workspace })`, README "Workspaces"): opens a new run's
 * worktree, reopens a resumed run's at its checkpoint's commit (keeping what an interrupted stage left as a patch),
 * and starts a fork's from its source stage's commit.
 */
import { constants, existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type {
  OpenedWorkspace,
  WorkspaceOpenRequest,
  WorkspaceProvider,
  WorkspaceRecord,
} from '@attractor/engine';
import { captureWorkingTree } from './capture-working-tree.js';
import { findOversizedFiles, listChangedFiles } from './changed-files.js';
import { WorkspaceError } from './errors/workspace-error.js';
import { findLeftovers, leftoversBetween } from './find-leftovers.js';
import { type FoundRepository, findRepository } from './find-repository.js';
import {
  createGitRunner,
  DEFAULT_IDENTITY,
  formatGitIdentity,
  type GitIdentity,
  type GitRunner,
  parseGitIdentity,
} from './git-runner.js';
import {
  addWorktree,
  GitWorkspace,
  type GitWorkspaceRecord,
  type GitWorkspaceSettings,
  readGitWorkspaceRecord,
} from './git-workspace.js';
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
  return {
    async open(request) {
      const record = request.record === undefined ? undefined : readGitWorkspaceRecord(request.record);
      if (request.record !== undefined && record === undefined) {
        throw new WorkspaceError({
          reason: 'unsupported',
          message: `The run's checkpoint records a "${String(request.record.mode)}" workspace this provider does not know.`,
        });
      }
      if (record !== undefined && record.run_id === request.runId) return reopen(record, settingsOf(record));
      const locations = locationsOf(request, options);
      if (record !== undefined) return startFrom(request, record, locations, settingsOf(record));
      // A run with a checkpoint but no record works in place (it started so, or before workspaces existed).
      if (request.resumed) return undefined;
      const mode = chooseMode(request, options);
      if (mode === 'in-place') return undefined;
      const repository = await findRepository(gitAt(request.workdir));
      if (mode === 'auto' && repository === undefined) return undefined;
      if (mode === 'copy') return startCopy(request, locations, settings, options.exclude ?? []);
      if (repository === undefined) {
        throw new WorkspaceError({
          reason: 'not_a_repository',
          message: `The git workspace needs a git repository, and ${request.workdir} is not inside one. Use --workspace copy (a copy the run owns) or --workspace in-place, or run in a repository.`,
        });
      }
      return startGit(request, repository, locations, settings, options.exclude ?? []);
    },
  };
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

interface Locations {
  readonly worktree: string;
  readonly branchRoot: string;
  /** The private repository of a copy. */
  readonly copyRepository: string;
}

function locationsOf(request: WorkspaceOpenRequest, options: WorkspaceProviderOptions): Locations {
  if (options.root !== undefined) {
    const base = join(resolve(options.root), request.runId);
    return { worktree: base, branchRoot: `${base}-branches`, copyRepository: `${base}.git` };
  }
  if (!isAbsolute(request.logsRoot)) {
    throw new WorkspaceError({
      reason: 'invalid_setting',
      message: `The run ${request.runId} is kept in ${request.logsRoot}, not in a directory: give the workspace provider a root directory for worktrees (root option, --workspace-root).`,
    });
  }
  return {
    worktree: join(request.logsRoot, 'workspace'),
    branchRoot: join(request.logsRoot, 'workspace-branches'),
    copyRepository: join(request.logsRoot, 'workspace.git'),
  };
}

/** Paths relative to `top` of the directories a capture or copy leaves out (those inside `top` only). */
function excludedBelow(top: string, paths: readonly string[]): string[] {
  return paths
    .map((path) => relative(top, path))
    .filter((path) => path !== '' && path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path))
    .map((path) => path.split(sep).join('/'));
}

async function startGit(
  request: WorkspaceOpenRequest,
  repository: FoundRepository,
  locations: Locations,
  settings: GitWorkspaceSettings,
  exclude: readonly string[],
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
  const workspace = new GitWorkspace({
    record: {
      mode: 'git',
      run_id: request.runId,
      commit: start,
      ref,
      worktree: locations.worktree,
      repository: repository.commonDir,
      subdirectory: subdirectory === '.' ? '' : subdirectory,
      base: start,
      branch_root: locations.branchRoot,
      author: settings.author,
    },
    settings,
  });
  await mkdir(workspace.workdir, { recursive: true });
  return { workspace };
}

async function startCopy(
  request: WorkspaceOpenRequest,
  locations: Locations,
  settings: GitWorkspaceSettings,
  exclude: readonly string[],
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
    workspace: new GitWorkspace({
      record: {
        mode: 'copy',
        run_id: request.runId,
        commit: start,
        ref,
        worktree: locations.worktree,
        repository,
        subdirectory: '',
        base: start,
        branch_root: locations.branchRoot,
        author: settings.author,
      },
      settings,
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
 * A fork's first start (or a `loop_restart` continuation): a worktree of this run on `attractor/<run-id>` at the
 * source record's commit. A copy gets a private repository of its own (a local clone of the source's).
 */
async function startFrom(
  request: WorkspaceOpenRequest,
  source: GitWorkspaceRecord,
  locations: Locations,
  settings: GitWorkspaceSettings,
): Promise<OpenedWorkspace> {
  let repository = source.repository;
  if (source.mode === 'copy') {
    repository = locations.copyRepository;
    await rm(repository, { recursive: true, force: true });
    await mkdir(join(repository, '..'), { recursive: true });
    await settings
      .gitAt(join(repository, '..'))
      .run(['clone', '-q', '--bare', '--local', '--no-hardlinks', source.repository, repository]);
  }
  const git = settings.gitAt(repository);
  const ref = await freeRunRef(git, request.runId);
  await mkdir(join(locations.worktree, '..'), { recursive: true });
  await addWorktree({ git, worktree: locations.worktree, ref, commit: source.commit });
  const workspace = new GitWorkspace({
    record: {
      mode: source.mode,
      run_id: request.runId,
      commit: source.commit,
      ref,
      worktree: locations.worktree,
      repository,
      subdirectory: source.subdirectory,
      base: source.commit,
      branch_root: locations.branchRoot,
      author: settings.author,
    },
    settings,
  });
  await mkdir(workspace.workdir, { recursive: true });
  return { workspace };
}

/**
 * A resumed run's own worktree, put back at the checkpoint's commit. What it held past that commit (an interrupted
 * stage's files, a commit made before the checkpoint was written) is returned as a patch first. A worktree that is
 * gone (cleaned) is added again from the branch.
 */
async function reopen(record: GitWorkspaceRecord, settings: GitWorkspaceSettings): Promise<OpenedWorkspace> {
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
    leftovers = found.leftovers;
    await git.run(['checkout', '-q', '-f', '-B', record.ref, record.commit]);
    await git.run(['clean', '-f', '-d', '-q', ...oversized.flatMap((file) => ['-e', `/${file.path}`])]);
  }
  const workspace = new GitWorkspace({ record, settings });
  return leftovers === undefined ? { workspace } : { workspace, leftovers };
}

/** The record of a run's workspace as this package wrote it, or undefined (none, or another provider's). */
export function workspaceRecordOf(record: WorkspaceRecord | undefined): GitWorkspaceRecord | undefined {
  return readGitWorkspaceRecord(record);
}

/**
 * The run's branch: `attractor/<run-id>`, or `attractor/<run-id>-2`, `-3`, ... when another run of the same id (a run
 * directory of the same name elsewhere) has that branch in this repository. An existing branch is never reset.
 */
async function freeRunRef(git: GitRunner, runId: string): Promise<string> {
  const taken = new Set(
    (await git.text(['for-each-ref', '--format=%(refname:short)', 'refs/heads/attractor/'])).split('\n'),
  );
  let ref = `attractor/${runId}`;
  for (let n = 2; taken.has(ref); n += 1) ref = `attractor/${runId}-${n}`;
  return ref;
}
