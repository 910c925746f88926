/**
 * Tells whether a worktree changed since the last look without scanning it (README of this package, "Benchmark"):
 * an inotify watch (node:fs `watch`, one per directory) on every directory git does not ignore, and one on the
 * worktree's own git directory (HEAD, index, MERGE_HEAD). A `git status` of 10,000 files costs a scan of the tree
 * for every stage; this costs one file created and one event read back when nothing changed.
 *
 * Ordering: every `fs.watch` of a process shares one inotify descriptor (libuv reads it on the event loop), so events
 * arrive in the order the kernel queued them. {@link WorktreeWatcher.settle} creates a file of a new name in the git
 * directory and waits for its event: every change made before (by a stage that has exited) has been seen by then.
 *
 * Whatever the watcher cannot vouch for (an error, an event without a name, a barrier that does not come back) makes
 * it `uncertain`: the caller then asks git (`status`), as without a watcher. Changes inotify never reports (writes
 * through a memory map or a hard link from outside the worktree, network filesystems) are not seen until a later
 * stage's commit picks them up: the provider's `watch: false` turns the watcher off.
 */
import { type Dirent, type FSWatcher, lstatSync, readdirSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GitRunner } from './git-runner.js';
import { linkedGitDir } from './linked-git-dir.js';

/** What changed since the last {@link WorktreeWatcher.settle}. */
export interface WorktreeChanges {
  /** Entries (files or directories) of watched directories that were created, changed or removed, `/`-separated, relative to the worktree's top. */
  readonly touched: ReadonlySet<string>;
  /** The worktree's git directory changed (HEAD, the index, a merge): what git holds may differ from the files. */
  readonly gitChanged: boolean;
  /** An error or an event without a name: nothing can be concluded from `touched`; ask git. */
  readonly uncertain: boolean;
}

/** A running watcher of one worktree. */
export interface WorktreeWatcher {
  /**
   * Waits until every change made before the call has been seen, then returns what was seen since the previous call
   * (and forgets it: changes after this call go to the next one).
   */
  settle(): Promise<WorktreeChanges>;
  /**
   * After the caller's own git commands (add, commit): waits for their events and forgets the git directory's, and
   * watches the directories among `touched` that appeared (not ignored by git), unwatches those that are gone.
   */
  refresh(touched: ReadonlySet<string>): Promise<void>;
  /** Watches the whole worktree again (after an uncertain look). */
  rebuild(): Promise<void>;
  close(): void;
}

/** Options of {@link startWorktreeWatcher}. */
export interface StartWorktreeWatcherOptions {
  /** The worktree's top directory. */
  readonly worktree: string;
  /** Runs git in the worktree (`check-ignore`). */
  readonly git: GitRunner;
  /** More directories than this are not watched (the caller falls back to `git status`). Default: 20,000. */
  readonly maxDirectories?: number;
  /** How long a barrier may take before the look counts as uncertain, in milliseconds. Default: 5,000. */
  readonly barrierTimeoutMs?: number;
}

/** The name prefix of the barrier files in the worktree's git directory. */
const BARRIER_PREFIX = 'attractor-watch-';

/**
 * Starts watching a linked worktree (see the module comment), or returns undefined when it cannot (not a linked
 * worktree, too many directories, the system's inotify limits reached).
 */
export async function startWorktreeWatcher(
  options: StartWorktreeWatcherOptions,
): Promise<WorktreeWatcher | undefined> {
  const gitDir = linkedGitDir(options.worktree);
  if (gitDir === undefined) return undefined;
  const watcher = new DirectoryWatcher({ ...options, gitDir });
  try {
    await watcher.rebuild();
  } catch {
    watcher.close();
    return undefined;
  }
  if (!watcher.failed) return watcher;
  watcher.close();
  return undefined;
}

class DirectoryWatcher implements WorktreeWatcher {
  /** Watched directories by path relative to the top (`''` is the top). */
  readonly #watched = new Map<string, FSWatcher>();
  readonly #top: string;
  readonly #gitDir: string;
  readonly #git: GitRunner;
  readonly #maxDirectories: number;
  readonly #barrierTimeoutMs: number;
  #gitWatcher: FSWatcher | undefined;
  #touched = new Set<string>();
  #gitChanged = false;
  #uncertain = false;
  #barrier = 0;
  #waiting: { readonly name: string; readonly resolve: () => void } | undefined;
  /** Watching failed (inotify limits): the watcher cannot be used. */
  failed = false;
  #closed = false;

  constructor(options: StartWorktreeWatcherOptions & { readonly gitDir: string }) {
    this.#top = options.worktree;
    this.#gitDir = options.gitDir;
    this.#git = options.git;
    this.#maxDirectories = options.maxDirectories ?? 20_000;
    this.#barrierTimeoutMs = options.barrierTimeoutMs ?? 5000;
  }

  async settle(): Promise<WorktreeChanges> {
    if (!(await this.#passBarrier())) this.#uncertain = true;
    const changes: WorktreeChanges = {
      touched: this.#touched,
      gitChanged: this.#gitChanged,
      uncertain: this.#uncertain || this.failed,
    };
    this.#touched = new Set();
    this.#gitChanged = false;
    this.#uncertain = false;
    return changes;
  }

  async refresh(touched: ReadonlySet<string>): Promise<void> {
    const appeared: string[] = [];
    for (const path of touched) {
      if (this.#watched.has(path)) {
        // A watched directory whose entry changed was removed, replaced or moved: its watch (and those below it)
        // may watch an inode that is no longer there. Inode numbers are reused at once, so they cannot tell: watch
        // it again from scratch.
        for (const dir of [...this.#watched.keys()]) {
          if (dir === path || dir.startsWith(`${path}/`)) this.#unwatch(dir);
        }
      }
      if (isDirectory(join(this.#top, path))) appeared.push(path);
    }
    if (appeared.length > 0) await this.#watchTrees(await this.#notIgnored(appeared));
    if (!(await this.#passBarrier())) this.#uncertain = true;
    this.#gitChanged = false;
  }

  async rebuild(): Promise<void> {
    for (const dir of [...this.#watched.keys()]) this.#unwatch(dir);
    this.#gitWatcher?.close();
    this.#gitWatcher = undefined;
    this.failed = false;
    for (const name of safeReaddir(this.#gitDir)) {
      if (name.startsWith(BARRIER_PREFIX)) rmSync(join(this.#gitDir, name), { force: true });
    }
    this.#gitWatcher = this.#open(this.#gitDir, (name) => {
      if (name === undefined) this.#uncertain = true;
      else if (name === this.#waiting?.name) this.#waiting.resolve();
      else if (!name.startsWith(BARRIER_PREFIX)) this.#gitChanged = true;
    });
    await this.#watchTrees(['']);
    const passed = await this.#passBarrier();
    this.#touched = new Set();
    this.#gitChanged = false;
    this.#uncertain = !passed;
  }

  close(): void {
    this.#closed = true;
    for (const dir of [...this.#watched.keys()]) this.#unwatch(dir);
    this.#gitWatcher?.close();
    this.#gitWatcher = undefined;
    this.#waiting?.resolve();
  }

  /** Creates a barrier file of a new name and waits for its event (false: it did not come in time). */
  async #passBarrier(): Promise<boolean> {
    if (this.#closed || this.failed || this.#gitWatcher === undefined) return false;
    this.#barrier += 1;
    const name = `${BARRIER_PREFIX}${process.pid}-${this.#barrier}`;
    const path = join(this.#gitDir, name);
    let timer: NodeJS.Timeout | undefined;
    const seen = await new Promise<boolean>((resolvePass) => {
      this.#waiting = { name, resolve: () => resolvePass(true) };
      timer = setTimeout(() => resolvePass(false), this.#barrierTimeoutMs);
      try {
        writeFileSync(path, '');
      } catch {
        resolvePass(false);
      }
    });
    clearTimeout(timer);
    this.#waiting = undefined;
    rmSync(path, { force: true });
    return seen;
  }

  /** Watches each directory of `roots` (relative) and every directory below it that git does not ignore. */
  async #watchTrees(roots: readonly string[]): Promise<void> {
    let level = [...roots];
    while (level.length > 0 && !this.failed) {
      const below: string[] = [];
      for (const dir of level) {
        if (this.#watched.size >= this.#maxDirectories) {
          this.failed = true;
          return;
        }
        const absolute = join(this.#top, dir);
        if (this.#watched.has(dir) || !isDirectory(absolute)) continue;
        const watcher = this.#open(absolute, (name) => {
          if (name === undefined) this.#uncertain = true;
          else this.#touched.add(dir === '' ? name : `${dir}/${name}`);
        });
        if (watcher === undefined) return;
        this.#watched.set(dir, watcher);
        for (const entry of safeReaddir(absolute, true)) {
          if (entry.isDirectory() && entry.name !== '.git')
            below.push(dir === '' ? entry.name : `${dir}/${entry.name}`);
        }
      }
      level = await this.#notIgnored(below.filter((dir) => !this.#watched.has(dir)));
    }
  }

  /** The directories of `dirs` that git does not ignore (one `check-ignore` for all). */
  async #notIgnored(dirs: readonly string[]): Promise<string[]> {
    if (dirs.length === 0) return [];
    const answer = await this.#git.run(['check-ignore', '-z', '--stdin'], {
      input: `${dirs.join('\0')}\0`,
      okExitCodes: [0, 1],
    });
    const ignored = new Set(answer.stdout.split('\0'));
    return dirs.filter((dir) => !ignored.has(dir));
  }

  #open(path: string, onName: (name: string | undefined) => void): FSWatcher | undefined {
    try {
      const watcher = watch(path, { persistent: false }, (_event, name) => {
        onName(name === null ? undefined : String(name));
      });
      watcher.on('error', () => {
        this.#uncertain = true;
      });
      return watcher;
    } catch (error) {
      // ENOENT: removed meanwhile (its parent's event says so); ENOSPC/EMFILE: the system's limits.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.failed = true;
      return undefined;
    }
  }

  #unwatch(dir: string): void {
    this.#watched.get(dir)?.close();
    this.#watched.delete(dir);
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function safeReaddir(path: string): string[];
function safeReaddir(path: string, withTypes: true): Dirent[];
function safeReaddir(path: string, withTypes?: true): string[] | Dirent[] {
  try {
    return withTypes === true ? readdirSync(path, { withFileTypes: true }) : readdirSync(path);
  } catch {
    return [];
  }
}
