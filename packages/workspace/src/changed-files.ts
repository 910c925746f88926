/**
 * What changed in a worktree since its last commit, from `git status`, and which changed files are too large to
 * commit (README "Workspaces": files over the size limit are never committed, restored or removed).
 */
import { existsSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitRunner } from './git-runner.js';

/** One changed path of `git status --porcelain`. */
export interface ChangedFile {
  /** Relative to the worktree's top, `/`-separated. */
  readonly path: string;
  /** The two status letters (`??` untracked, ` M` modified, ` D` deleted, `UU` conflicted, ...). */
  readonly status: string;
}

/** A changed file left out of a commit, and why. */
export interface SkippedFile {
  readonly path: string;
  readonly reason: string;
}

/** The changed files of the worktree `git` runs in (untracked ones one by one; ignored ones not at all). */
export async function listChangedFiles(git: GitRunner): Promise<ChangedFile[]> {
  const out = await git.text([
    '--no-optional-locks',
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    '--ignore-submodules=all',
  ]);
  if (out === '') return [];
  const files: ChangedFile[] = [];
  for (const entry of out.split('\0')) {
    if (entry.length < 4) continue;
    files.push({ status: entry.slice(0, 2), path: entry.slice(3) });
  }
  return files;
}

/** The changed files that exist and are larger than `maxFileBytes`, with the reason for the warning. */
export async function findOversizedFiles(options: {
  readonly worktree: string;
  readonly files: readonly ChangedFile[];
  readonly maxFileBytes: number;
}): Promise<SkippedFile[]> {
  const skipped: SkippedFile[] = [];
  await Promise.all(
    options.files.map(async (file) => {
      if (file.status.includes('D')) return;
      const stats = await lstat(join(options.worktree, file.path)).catch(() => undefined);
      if (stats?.isFile() === true && stats.size > options.maxFileBytes) {
        skipped.push({
          path: file.path,
          reason: `${formatBytes(stats.size)}, over the ${formatBytes(options.maxFileBytes)} limit`,
        });
      }
    }),
  );
  return skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The files among `paths` (relative to the worktree's top, files or directories: a directory's files are all looked
 * at) that exist and are larger than `maxFileBytes`. Ignored files are not told apart: see {@link notIgnored}.
 */
export async function findOversizedPaths(options: {
  readonly worktree: string;
  readonly paths: Iterable<string>;
  readonly maxFileBytes: number;
}): Promise<SkippedFile[]> {
  const skipped: SkippedFile[] = [];
  const visit = async (path: string): Promise<void> => {
    const absolute = join(options.worktree, path);
    const stats = await lstat(absolute).catch(() => undefined);
    if (stats?.isDirectory() === true) {
      const entries = await readdir(absolute).catch(() => [] as string[]);
      await Promise.all(entries.filter((name) => name !== '.git').map((name) => visit(`${path}/${name}`)));
    } else if (stats?.isFile() === true && stats.size > options.maxFileBytes) {
      skipped.push({
        path,
        reason: `${formatBytes(stats.size)}, over the ${formatBytes(options.maxFileBytes)} limit`,
      });
    }
  };
  await Promise.all([...new Set(options.paths)].map(visit));
  return skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The paths of `paths` (relative to the top of the worktree `git` runs in) that exist and that git does not ignore:
 * `git add` refuses a pathspec (even an excluding one) naming an ignored path.
 */
export async function notIgnored(git: GitRunner, paths: readonly string[]): Promise<string[]> {
  const present = paths.filter((path) => existsSync(join(git.cwd, path)));
  if (present.length === 0) return [];
  const ignored = new Set(
    (
      await git.text(['check-ignore', '-z', '--stdin'], {
        input: `${present.join('\0')}\0`,
        okExitCodes: [0, 1],
      })
    ).split('\0'),
  );
  return present.filter((path) => !ignored.has(path));
}

/** `git add` pathspecs: everything, except the given paths (literally). */
export function pathspecsExcluding(paths: readonly string[]): string[] {
  return ['--', ':/', ...paths.map((path) => `:(top,literal,exclude)${path}`)];
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}
