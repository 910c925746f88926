/**
 * The run lock of the file store (docs/architecture.md "Checkpoint": one runner per run). `proper-lockfile`
 * holds `run.lock/` in the run directory (an atomic `mkdir`, its mtime refreshed every 2 s while held,
 * removed on a normal exit); `run.lock.json` beside it records the holder (pid, host, since, the lock
 * directory's inode and the process groups of running stage commands).
 *
 * proper-lockfile judges staleness by mtime alone, which would make the next runner wait out the threshold after a
 * `kill -9`. So its own stale removal is switched off and a stale lock is taken over here instead: the holder is dead
 * when it ran on this host and its pid no longer exists, or (any host) when the lock's mtime is older than
 * `staleMs`. Takeovers are serialised by a second, short-lived lock (`run.lock.gate/`), and the holder record must
 * name the inode of the lock directory it belongs to, so a taker never removes a lock another runner just took.
 */
import { readFileSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { lock as lockFile, lockSync } from 'proper-lockfile';
import { RunLockedError } from './errors/run-locked-error.js';
import { isProcessAlive, killProcessGroup, processGroupAlive } from './process-groups.js';
import type { RunLock, RunLockHolder } from './run-lock.js';
import { writeFileAtomicSync } from './write-file-atomic-sync.js';

/** The lock directory proper-lockfile creates in the run directory. */
export const RUN_LOCK_DIRECTORY = 'run.lock';
/** The holder record in the run directory. */
export const RUN_LOCK_FILE = 'run.lock.json';
/** Default age of an unrefreshed lock after which it is stale, in milliseconds: 15 missed refreshes. */
export const DEFAULT_STALE_LOCK_MS = 30_000;

const GATE_DIRECTORY = 'run.lock.gate';
const REFRESH_MS = 2_000;
/** proper-lockfile never removes a lock by itself: takeovers happen in {@link acquireFileRunLock}. */
const NEVER_STALE_MS = 2 ** 31;

/** What `run.lock.json` holds: the holder and the inode of the lock directory it belongs to. */
interface StoredHolder extends RunLockHolder {
  readonly lock_inode: string;
}

/** Options of {@link acquireFileRunLock}. Internal to the engine. */
export interface FileRunLockOptions {
  /** The run directory (must exist). */
  readonly directory: string;
  /** When the lock is taken (ISO-8601). */
  readonly since: string;
  /** Age of an unrefreshed lock after which another runner takes it over, in milliseconds. Default: 30,000. */
  readonly staleMs?: number;
}

/**
 * Takes the run lock of a run directory, taking over a stale one (after killing the process groups its holder
 * recorded, when it ran on this host).
 * @throws {RunLockedError} when a live runner holds it.
 */
export async function acquireFileRunLock(options: FileRunLockOptions): Promise<RunLock> {
  const { directory } = options;
  const staleMs = options.staleMs ?? DEFAULT_STALE_LOCK_MS;
  const release = await tryLock(directory, RUN_LOCK_DIRECTORY);
  if (release !== undefined) return held(directory, options.since, release);

  if (!isStale(directory, staleMs)) {
    throw new RunLockedError({ logsRoot: directory, holder: readFileRunLock(directory) });
  }
  const releaseGate = await lockFile(join(directory, GATE_DIRECTORY), {
    realpath: false,
    lockfilePath: join(directory, GATE_DIRECTORY),
    retries: { retries: 40, minTimeout: 25, maxTimeout: 250 },
    onCompromised: () => undefined,
  });
  try {
    // Another taker may have been first: look again under the gate.
    const stale = readStale(directory, staleMs);
    if (stale === undefined) {
      throw new RunLockedError({ logsRoot: directory, holder: readFileRunLock(directory) });
    }
    const ended =
      stale.holder?.host === hostname()
        ? (stale.holder.process_groups ?? []).filter((group) => processGroupAlive(group))
        : [];
    for (const group of ended) killProcessGroup(group, 'SIGKILL');
    removeIfPresent(() => rmdirSync(join(directory, RUN_LOCK_DIRECTORY)));
    const taken = await tryLock(directory, RUN_LOCK_DIRECTORY);
    if (taken === undefined) {
      throw new RunLockedError({ logsRoot: directory, holder: readFileRunLock(directory) });
    }
    return Object.assign(held(directory, options.since, taken), { endedProcessGroups: ended });
  } finally {
    await releaseGate();
  }
}

/** The holder record of a run directory, when it has one. */
export function readFileRunLock(directory: string): RunLockHolder | undefined {
  const stored = readStored(directory);
  if (stored === undefined) return undefined;
  const { lock_inode: _inode, ...holder } = stored;
  return holder;
}

async function tryLock(directory: string, name: string): Promise<(() => Promise<void>) | undefined> {
  try {
    // Synchronous (an atomic mkdir and a stat): a run starts without waiting on the thread pool. proper-lockfile keys
    // its in-process bookkeeping by the first argument: one key per lock, not per directory.
    const release = lockSync(join(directory, name), {
      realpath: false,
      lockfilePath: join(directory, name),
      stale: NEVER_STALE_MS,
      update: REFRESH_MS,
      // A lock whose refresh failed (its directory removed under it) is not worth crashing the process for.
      onCompromised: () => undefined,
    });
    return async () => release();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw error;
  }
}

function held(directory: string, since: string, release: () => Promise<void>): RunLock {
  const inode = String(statSync(join(directory, RUN_LOCK_DIRECTORY), { bigint: true }).ino);
  let holder: RunLockHolder = { pid: process.pid, host: hostname(), since };
  writeStored(directory, { ...holder, lock_inode: inode });
  let released = false;
  return {
    get holder() {
      return holder;
    },
    async setProcessGroups(processGroupIds) {
      if (released) return;
      holder = { ...holder, process_groups: [...processGroupIds] };
      writeStored(directory, { ...holder, lock_inode: inode });
    },
    async release() {
      if (released) return;
      released = true;
      if (readStored(directory)?.lock_inode === inode) {
        removeIfPresent(() => unlinkSync(join(directory, RUN_LOCK_FILE)));
      }
      await release();
    },
  };
}

function isStale(directory: string, staleMs: number): boolean {
  return readStale(directory, staleMs) !== undefined;
}

/** The stale lock's holder record (`holder` undefined when it has none), or undefined when the lock is live or gone. */
function readStale(directory: string, staleMs: number): { holder: StoredHolder | undefined } | undefined {
  let lock: { ino: bigint; mtimeMs: bigint };
  try {
    lock = statSync(join(directory, RUN_LOCK_DIRECTORY), { bigint: true });
  } catch (error) {
    // Released meanwhile: "stale" in the sense that nobody holds it.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { holder: undefined };
    throw error;
  }
  // The file system's clock, not the run's: mtimes are real time.
  const unrefreshed = Date.now() - Number(lock.mtimeMs) > staleMs;
  const stored = readStored(directory);
  if (stored === undefined || stored.lock_inode !== String(lock.ino)) {
    // The record is missing or belongs to an earlier lock: the holder has not recorded itself (yet).
    return unrefreshed ? { holder: undefined } : undefined;
  }
  if (unrefreshed) return { holder: stored };
  return stored.host === hostname() && !isProcessAlive(stored.pid) ? { holder: stored } : undefined;
}

function readStored(directory: string): StoredHolder | undefined {
  let text: string;
  try {
    text = readFileSync(join(directory, RUN_LOCK_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<StoredHolder>;
    if (
      typeof value.pid !== 'number' ||
      typeof value.host !== 'string' ||
      typeof value.lock_inode !== 'string'
    )
      return undefined;
    return value as StoredHolder;
  } catch {
    // A record torn by a crash is no record.
    return undefined;
  }
}

function writeStored(directory: string, stored: StoredHolder): void {
  // Atomic, and a full disk leaves no empty temp file behind (write-file-atomic-sync.ts).
  writeFileAtomicSync(join(directory, RUN_LOCK_FILE), `${JSON.stringify(stored, null, 2)}\n`);
}

function removeIfPresent(remove: () => void): void {
  try {
    remove();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
