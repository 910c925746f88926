/**
 * Captures a working tree's files (tracked and untracked, not ignored) as a git tree without touching its index:
 * `git add -A` into a temporary copy of the index (`GIT_INDEX_FILE`), then `git write-tree` (README "Workspaces").
 * The user's index, stash and files stay as they were; only objects are added to the repository.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathspecsExcluding } from './changed-files.js';
import type { GitRunner } from './git-runner.js';

/** Options of {@link captureWorkingTree}. */
export interface CaptureWorkingTreeOptions {
  /** Runs in the working tree's top directory. */
  readonly git: GitRunner;
  /** Paths relative to the top that are left out (run directories, oversized files); those that do not exist are skipped. */
  readonly exclude?: readonly string[];
  /** The working tree's index file (absolute), when the caller knows it. Default: asked of git. */
  readonly indexPath?: string;
}

/** The captured tree, and the temporary index it was written from (for a following `diff --cached`). */
export interface CapturedTree {
  readonly tree: string;
  /** Runs `git` with the temporary index; call {@link CapturedTree.dispose} after. */
  readonly withIndex: Readonly<Record<string, string>>;
  dispose(): Promise<void>;
}

/** Captures the working tree of `options.git` (see the module comment). */
export async function captureWorkingTree(options: CaptureWorkingTreeOptions): Promise<CapturedTree> {
  const { git } = options;
  const directory = await mkdtemp(join(tmpdir(), 'attractor-index-'));
  const index = join(directory, 'index');
  const dispose = () => rm(directory, { recursive: true, force: true });
  try {
    // Starting from a copy of the real index keeps its stat data: `add -A` then hashes only what changed.
    const realIndex =
      options.indexPath ?? (await git.text(['rev-parse', '--path-format=absolute', '--git-path', 'index']));
    await copyFile(realIndex, index).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    const env = { GIT_INDEX_FILE: index };
    await git.run(['add', '-A', ...pathspecsExcluding(await notIgnored(git, options.exclude ?? []))], {
      env,
    });
    const tree = await git.text(['write-tree'], { env });
    return { tree, withIndex: env, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** The paths git does not ignore: `git add` refuses a pathspec (even an excluding one) naming an ignored path. */
async function notIgnored(git: GitRunner, paths: readonly string[]): Promise<string[]> {
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
