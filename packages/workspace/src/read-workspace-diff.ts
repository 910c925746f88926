/**
 * What a run, or one of its stages, changed, as data (README "Workspaces"; the server's diff endpoints): the changed
 * files with their lines added and deleted, and the patch, read with git from the repository that holds the run's
 * commits (fetched from the shared repository or the run store's bundles when this machine does not have them).
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkspaceDiff, WorkspaceDiffRequest, WorkspaceFileChange } from '@attractor/engine';
import { WorkspaceError } from './errors/workspace-error.js';
import { createGitRunner, type GitRunner } from './git-runner.js';
import { readGitWorkspaceRecord } from './git-workspace.js';
import { fetchRunCommits, hasCommit } from './share-run-commits.js';
import { openLocalRepository } from './start-run-workspace.js';

/** The patch of a diff is cut after this many characters unless asked otherwise. */
export const DEFAULT_MAX_PATCH_CHARS = 1_000_000;

/** Options of {@link readWorkspaceDiff}. */
export interface ReadWorkspaceDiffOptions extends WorkspaceDiffRequest {
  /** The shared repository the run's commits may be fetched from. */
  readonly remote?: string;
  /**
   * Where commits fetched from elsewhere are kept (a bare repository, created when missing). Default:
   * `attractor-workspaces/repository.git` in the system's temporary directory.
   */
  readonly cacheRepository?: string;
  /** The git binary. Default: `git`. */
  readonly gitPath?: string;
}

const STATUS: Readonly<Record<string, WorkspaceFileChange['status']>> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type-changed',
};

/**
 * The diff of a run (its start commit to its last) or of one stage commit (against its first parent).
 * @throws {WorkspaceError} `no_workspace` for a run that works in place; `unavailable` when the commits are not here
 *   and cannot be fetched.
 */
export async function readWorkspaceDiff(options: ReadWorkspaceDiffOptions): Promise<WorkspaceDiff> {
  const record = readGitWorkspaceRecord(options.record);
  if (record === undefined) {
    throw new WorkspaceError({
      reason: 'no_workspace',
      message: 'The run works in place: it has no workspace whose commits show what it changed.',
    });
  }
  const gitAt = (cwd: string) =>
    createGitRunner({ cwd, ...(options.gitPath === undefined ? {} : { gitPath: options.gitPath }) });
  const to = options.commit ?? record.commit;
  let git: GitRunner = gitAt(record.repository);
  if (!existsSync(record.repository) || !(await hasCommit(git, to))) {
    const cache = options.cacheRepository ?? join(tmpdir(), 'attractor-workspaces', 'repository.git');
    git = await openLocalRepository({ gitAt, maxFileBytes: 0, author: '' }, cache);
    const found = await fetchRunCommits({
      git,
      sharing: {
        ...(options.remote === undefined ? {} : { remote: options.remote }),
        ...(options.store === undefined ? {} : { store: options.store }),
      },
      ref: record.ref,
      commit: to,
    });
    await git.run(['update-ref', '-d', `refs/attractor-incoming/${record.ref}`], { okExitCodes: [0, 1] });
    if (!found.found) {
      throw new WorkspaceError({
        reason: 'unavailable',
        message: `The commit ${to.slice(0, 12)} of run ${record.run_id} is not on this machine${options.remote === undefined ? '' : `, nor on the shared repository ${options.remote}`}, and the run store holds no bundle with it: give the server the workers' --workspace-remote.`,
      });
    }
  }
  const from = options.commit === undefined ? record.base : await firstParent(git, options.commit);
  const range = [from, to];
  const [numstat, names, patch] = await Promise.all([
    git.text(['diff', '--numstat', '-z', '-M', ...range]),
    git.text(['diff', '--name-status', '-z', '-M', ...range]),
    git.text(['diff', '-M', '--no-color', ...range]),
  ]);
  const files = parseChanges(names, numstat);
  const maxChars = options.maxPatchChars ?? DEFAULT_MAX_PATCH_CHARS;
  return {
    from,
    to,
    files,
    additions: files.reduce((sum, file) => sum + (file.additions ?? 0), 0),
    deletions: files.reduce((sum, file) => sum + (file.deletions ?? 0), 0),
    patch: patch.length > maxChars ? patch.slice(0, maxChars) : patch === '' ? '' : `${patch}\n`,
    truncated: patch.length > maxChars,
  };
}

/** The first parent of a commit, or the empty tree for a root commit. */
async function firstParent(git: GitRunner, commit: string): Promise<string> {
  const parent = await git
    .text(['rev-parse', '--verify', '-q', `${commit}^1`], { okExitCodes: [0] })
    .catch(() => undefined);
  // A root commit (a copy's first): against git's empty tree.
  return parent ?? (await git.text(['hash-object', '-t', 'tree', '/dev/null']));
}

/**
 * The files of `git diff --name-status -z -M` with the line counts of `git diff --numstat -z -M` (same order; a
 * rename is `R<score>\0old\0new` in the first and `adds\tdels\t\0old\0new` in the second).
 */
function parseChanges(names: string, numstat: string): WorkspaceFileChange[] {
  const counts: { additions?: number; deletions?: number; binary: boolean }[] = [];
  const stat = numstat.split('\0');
  for (let index = 0; index < stat.length; index += 1) {
    const entry = stat[index]!;
    if (entry === '') continue;
    const [adds, dels, path] = entry.split('\t');
    // A rename or copy: the two paths follow as fields of their own.
    if (path === '') index += 2;
    counts.push(
      adds === '-' ? { binary: true } : { additions: Number(adds), deletions: Number(dels), binary: false },
    );
  }
  const files: WorkspaceFileChange[] = [];
  const fields = names.split('\0');
  for (let index = 0; index < fields.length; ) {
    const code = fields[index++];
    if (code === undefined || code === '') continue;
    const letter = code[0]!;
    const twoPaths = letter === 'R' || letter === 'C';
    const previousPath = twoPaths ? fields[index++] : undefined;
    const path = fields[index++]!;
    const count = counts[files.length] ?? { binary: false };
    files.push({
      path,
      ...(previousPath === undefined ? {} : { previousPath }),
      status: STATUS[letter] ?? 'modified',
      ...(count.additions === undefined ? {} : { additions: count.additions }),
      ...(count.deletions === undefined ? {} : { deletions: count.deletions }),
      binary: count.binary,
    });
  }
  return files;
}
