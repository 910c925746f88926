/**
 * The runs directory as a {@link RunCatalog} (docs/architecture.md "Run directory"): every subdirectory
 * holding a `manifest.json` is a run, opened with the file store; `listRuns` builds the index from each run's
 * manifest, checkpoint, lock holder record and the end of its event log, and keeps the entries of finished
 * runs in `.attractor-run-index.json` beside them (see {@link createFileRunCatalog}).
 */
import {
  closeSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { InvalidStoreNameError } from './errors/invalid-store-name-error.js';
import { createFileRunStore } from './file-run-store.js';
import { isProcessAlive } from './process-groups.js';
import type { RunLockHolder } from './run-lock.js';
import { type RunEventState, type RunEventStatus, runStatusAfterEvent } from './run-status-after-event.js';
import type {
  Checkpoint,
  RunCatalog,
  RunIndexEntry,
  RunIndexStatus,
  RunManifest,
  RunStore,
} from './run-store.js';
import { writeFileAtomicSync } from './write-file-atomic-sync.js';

/** A run id usable as a directory name: letters, digits, `.`, `_`, `-`, not starting with `.`. */
const RUN_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** How much of the end of `events.jsonl` `listRuns` reads per run, in bytes. */
const EVENTS_TAIL_BYTES = 64 * 1024;
/** The run index of finished runs, in the runs directory (a name no run id can take: it starts with a dot). */
export const RUN_INDEX_FILE = '.attractor-run-index.json';
/**
 * A run directory changed less than this long ago (milliseconds) is read again next time rather than taken from the
 * index: a file system that keeps modification times in whole seconds could hide a second change within one.
 */
const SETTLE_MS = 2000;

/** Options of {@link createFileRunCatalog}. */
export interface FileRunCatalogOptions {
  /** fsync checkpoints of the runs opened (see `FileRunStoreOptions.fsync`). Default: false. */
  readonly fsync?: boolean;
  /** See `FileRunStoreOptions.staleLockMs`. Default: 30,000. */
  readonly staleLockMs?: number;
}

/**
 * Opens a runs directory (e.g. `.attractor/runs`) as a {@link RunCatalog}. Nothing is created until a run is written.
 *
 * `listRuns` status: the checkpoint's final state; else the run's final event (`pipeline.completed|failed|cancelled`
 * ends the log of a run whose checkpoint still says running); else `waiting` when a live runner holds its lock and an
 * interview is open at the end of the log, or when the log ends with `pipeline.suspended` (a worker suspended the run
 * at a human gate, holding no lock: the PostgreSQL run index says `waiting` too); `running` when a live runner holds
 * it; `interrupted` otherwise. A run
 * directory continued by a `loop_restart` is not listed: its continuation is (with `parentRunId` naming it).
 *
 * `readRunEntry(runId)` reads that one run's entry the same way.
 *
 * `listRuns` keeps the entries of finished runs (`success`, `fail`, `cancelled`, and directories continued by a
 * `loop_restart`) in `.attractor-run-index.json` in the runs directory, each with the identity and modification time
 * of its run directory; a later `listRuns` reads a run again only when its directory changed. Every runner of a run
 * changes its directory (it takes the run lock there), so a resumed, re-run or removed run is never listed from a
 * stale entry. With 10,000 finished runs, `listRuns` costs one `stat` per run and one read of the index. A runs
 * directory this process cannot write is read in full each time.
 *
 * `removeRun` takes the run lock, then removes the run directory (and the directories a `loop_restart` continued).
 *
 * `open` returns the same store for a run until that store is closed; `close` closes the stores still open.
 *
 * @example
 * const catalog = createFileRunCatalog('.attractor/runs');
 * const [latest] = await catalog.listRuns({ limit: 1 });
 */
export function createFileRunCatalog(runsDirectory: string, options: FileRunCatalogOptions = {}): RunCatalog {
  const root = resolve(runsDirectory);
  /** The stores opened and not closed yet, by run id: `open` shares one, `close` of the catalog closes them. */
  const opened = new Map<string, RunStore>();
  return {
    location: root,
    open(runId) {
      if (!RUN_ID_PATTERN.test(runId)) throw new InvalidStoreNameError({ kind: 'run id', value: runId });
      const existing = opened.get(runId);
      if (existing !== undefined) return existing;
      const store = createFileRunStore({ ...options, logsRoot: join(root, runId), createDirectory: false });
      const closeStore = store.close.bind(store);
      // A closed store is forgotten, so that a long-lived catalog (a worker, a server) keeps no store per run it
      // ever opened; the next `open` of the run creates a new one.
      store.close = () => {
        if (opened.get(runId) === store) opened.delete(runId);
        return closeStore();
      };
      opened.set(runId, store);
      return store;
    },
    async listRuns(filter = {}) {
      const index = readRunIndex(root);
      /** Runs whose index entry still holds, and settled runs read now (to index). */
      const still: string[] = [];
      const fresh = new Map<string, IndexedRun>();
      const entries: RunIndexEntry[] = [];
      const nowMs = Date.now();
      const only = filter.runIds === undefined ? undefined : new Set(filter.runIds);
      for (const runId of listRunIds(root)) {
        if (only !== undefined && !only.has(runId)) continue;
        const directory = join(root, runId);
        // Before the run's files are read: a change while they are read makes the next listing read them again.
        const stamp = directoryStamp(directory);
        if (stamp === undefined) continue;
        const indexed = index[runId];
        let entry: RunIndexEntry | undefined | null;
        if (indexed !== undefined && indexed.stamp === stamp.key) {
          entry = indexed.entry;
          still.push(runId);
        } else {
          const read = await readIndexEntry(directory, runId, options.staleLockMs);
          entry = read.entry;
          if (read.settled && nowMs - stamp.modifiedMs > SETTLE_MS) {
            fresh.set(runId, { stamp: stamp.key, entry: entry ?? null });
          }
        }
        if (entry === undefined || entry === null) continue;
        if (filter.status !== undefined && entry.status !== filter.status) continue;
        if (filter.graph !== undefined && entry.graphName !== filter.graph) continue;
        entries.push(entry);
      }
      // Written only when it changed: a run indexed or read again, or one gone.
      if (only !== undefined) {
        // Some runs were looked at: the others' entries stay as they are.
        if (fresh.size > 0) writeRunIndex(root, { ...index, ...Object.fromEntries(fresh) });
      } else if (fresh.size > 0 || still.length !== Object.keys(index).length) {
        const kept: Record<string, IndexedRun> = Object.fromEntries(fresh);
        for (const runId of still) kept[runId] = index[runId]!;
        writeRunIndex(root, kept);
      }
      entries.sort((left, right) =>
        left.startedAt === right.startedAt
          ? compare(right.runId, left.runId)
          : compare(right.startedAt, left.startedAt),
      );
      return filter.limit === undefined ? entries : entries.slice(0, Math.max(0, filter.limit));
    },
    async readRunEntry(runId) {
      if (!RUN_ID_PATTERN.test(runId)) throw new InvalidStoreNameError({ kind: 'run id', value: runId });
      return (await readIndexEntry(join(root, runId), runId, options.staleLockMs)).entry;
    },
    async removeRun(runId) {
      if (!RUN_ID_PATTERN.test(runId)) throw new InvalidStoreNameError({ kind: 'run id', value: runId });
      await opened.get(runId)?.close();
      return removeRunDirectory(root, runId, options.staleLockMs);
    },
    async close() {
      for (const store of opened.values()) await store.close();
      opened.clear();
    },
  };
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function listRunIds(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && RUN_ID_PATTERN.test(entry.name))
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** A run directory as the index file keeps it: the directory's stamp and its entry (null: not listed, for good). */
interface IndexedRun {
  readonly stamp: string;
  readonly entry: RunIndexEntry | null;
}

/** What the index file holds. */
interface RunIndexFile {
  readonly version: 1;
  readonly runs: Readonly<Record<string, IndexedRun>>;
}

/** The runs of the index file; none when it is missing, unreadable or of another version. */
function readRunIndex(root: string): Readonly<Record<string, IndexedRun>> {
  try {
    const file = JSON.parse(readFileSync(join(root, RUN_INDEX_FILE), 'utf8')) as Partial<RunIndexFile>;
    return file.version === 1 && typeof file.runs === 'object' && file.runs !== null ? file.runs : {};
  } catch {
    return {};
  }
}

/** Replaces the index file; a runs directory this process cannot write simply goes without one. */
function writeRunIndex(root: string, runs: Readonly<Record<string, IndexedRun>>): void {
  const file: RunIndexFile = { version: 1, runs };
  try {
    writeFileAtomicSync(join(root, RUN_INDEX_FILE), JSON.stringify(file));
  } catch {
    // Read-only, full or gone: the next listing reads the runs again.
  }
}

/**
 * A run directory's identity and last change (inode and modification time in milliseconds with its fraction, about a
 * microsecond's resolution), or undefined if it is gone.
 */
function directoryStamp(
  directory: string,
): { readonly key: string; readonly modifiedMs: number } | undefined {
  const stat = statSync(directory, { throwIfNoEntry: false });
  return stat === undefined ? undefined : { key: `${stat.ino}:${stat.mtimeMs}`, modifiedMs: stat.mtimeMs };
}

/** The file store of a run directory, creating nothing until it is written. */
function directoryStore(directory: string, staleLockMs: number | undefined): RunStore {
  return createFileRunStore({
    logsRoot: directory,
    createDirectory: false,
    ...(staleLockMs === undefined ? {} : { staleLockMs }),
  });
}

/**
 * Removes run `runId` of the runs directory under its lock, then the run it continued (a `loop_restart` keeps the
 * earlier legs in sibling directories that are not listed). False when there is no such run.
 */
async function removeRunDirectory(
  root: string,
  runId: string,
  staleLockMs: number | undefined,
): Promise<boolean> {
  const directory = join(root, runId);
  const store = directoryStore(directory, staleLockMs);
  const manifest = await store.readManifest().catch(() => undefined);
  if (manifest === undefined && directoryStamp(directory) === undefined) return false;
  const lock = await store.acquireLock({ since: new Date().toISOString() });
  try {
    rmSync(directory, { recursive: true, force: true });
  } finally {
    await lock.release().catch(() => undefined);
  }
  const previous = manifest?.restarted_from;
  if (previous !== undefined && dirname(resolve(root, previous)) === root) {
    const previousId = basename(previous);
    if (RUN_ID_PATTERN.test(previousId) && previousId !== runId)
      await removeRunDirectory(root, previousId, staleLockMs);
  }
  return true;
}

/**
 * The index entry of one run directory (undefined when it has no readable manifest or was restarted elsewhere), and
 * whether it is settled: finished, or continued elsewhere, so that only another runner can change it.
 */
async function readIndexEntry(
  directory: string,
  runId: string,
  staleLockMs: number | undefined,
): Promise<{ readonly entry: RunIndexEntry | undefined; readonly settled: boolean }> {
  const store = directoryStore(directory, staleLockMs);
  let manifest: RunManifest | undefined;
  try {
    manifest = await store.readManifest();
  } catch {
    return { entry: undefined, settled: false }; // Not JSON: not a run this catalog can describe.
  }
  if (manifest === undefined || typeof manifest.run_id !== 'string')
    return { entry: undefined, settled: false };
  let checkpoint: Checkpoint | undefined;
  let corrupt = false;
  try {
    checkpoint = await store.readCheckpoint();
  } catch {
    corrupt = true;
  }
  if (checkpoint?.state === 'restarted') return { entry: undefined, settled: true };
  const tail = readEventsTail(join(directory, 'events.jsonl'));
  const status = indexStatus(checkpoint, tail, await store.readLock(), corrupt);
  const running = status === 'running' || status === 'waiting' || status === 'interrupted';
  const currentNode = running ? (checkpoint?.next_node ?? undefined) : checkpoint?.current_node;
  const endedAt = running ? undefined : (tail.final?.timestamp ?? checkpoint?.timestamp);
  const entry: RunIndexEntry = {
    runId,
    graphName: manifest.graph_name,
    goal: manifest.goal,
    status,
    startedAt: manifest.started_at,
    ...(currentNode === undefined || currentNode === '' ? {} : { currentNode }),
    ...(endedAt === undefined ? {} : { endedAt }),
    ...(manifest.restarted_from === undefined ? {} : { parentRunId: basename(manifest.restarted_from) }),
    ...(manifest.forked_from === undefined
      ? {}
      : {
          forkedFrom: manifest.forked_from.run_id,
          forkedAt: { node: manifest.forked_from.node, visit: manifest.forked_from.visit },
        }),
  };
  return { entry, settled: !running };
}

function indexStatus(
  checkpoint: Checkpoint | undefined,
  tail: EventsTail,
  lock: RunLockHolder | undefined,
  corrupt: boolean,
): RunIndexStatus {
  const state = checkpoint?.state;
  if (state === 'success' || state === 'fail' || state === 'cancelled') return state;
  if (tail.final !== undefined) return tail.final.status;
  if (corrupt) return 'fail';
  // The holder record is removed on release; a holder of this host whose process is gone was killed.
  const live = lock !== undefined && (lock.host !== hostname() || isProcessAlive(lock.pid));
  if (!live) return tail.state?.status === 'suspended' ? 'waiting' : 'interrupted';
  return (tail.state?.openInterviews ?? 0) > 0 ? 'waiting' : 'running';
}

/** What the end of an event log says: how the run ended, if it did, and its status by {@link runStatusAfterEvent}. */
interface EventsTail {
  readonly final?: { readonly status: 'success' | 'fail' | 'cancelled'; readonly timestamp?: string };
  readonly state?: RunEventState;
}

function readEventsTail(path: string): EventsTail {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return {};
  }
  let text: string;
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, EVENTS_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    text = buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
  let state: RunEventState | undefined;
  let endedAt: string | undefined;
  for (const line of text.split('\n')) {
    let event: { type?: unknown; timestamp?: unknown };
    try {
      event = JSON.parse(line) as { type?: unknown; timestamp?: unknown };
    } catch {
      continue; // Empty, torn, or cut by the start of the window.
    }
    const before = state;
    state = runStatusAfterEvent(before, event);
    if (state !== before && isEnded(state.status))
      endedAt = typeof event.timestamp === 'string' ? event.timestamp : undefined;
  }
  const status = state?.status;
  return {
    ...(state === undefined ? {} : { state }),
    ...(isEnded(status)
      ? { final: { status, ...(endedAt === undefined ? {} : { timestamp: endedAt }) } }
      : {}),
  };
}

function isEnded(status: RunEventStatus | undefined): status is 'success' | 'fail' | 'cancelled' {
  return status === 'success' || status === 'fail' || status === 'cancelled';
}
