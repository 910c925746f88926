/**
 * What changed in a worktree since its last commit, from `git status`, and which changed files are too large to
 * commit (README "Workspaces": files over the size limit are never committed, restored or removed).
 */
import { lstat } from 'node:fs/promises';
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

/** `git add` pathspecs: everything, except the given paths (literally). */
export function pathspecsExcluding(paths: readonly string[]): string[] {
  return ['--', ':/', ...paths.map((path) => `:(top,literal,exclude)${path}`)];
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}
