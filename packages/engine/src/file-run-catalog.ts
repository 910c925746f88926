/**
 * The runs directory as a {@link RunCatalog} (DESIGN.md "Run directory"): every subdirectory holding a
 * `manifest.json` is a run, opened with the file store; `listRuns` builds the index from each run's manifest,
 * checkpoint, lock holder record and the end of its event log.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join, resolve } from 'node:path';
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

/** A run id usable as a directory name: letters, digits, `.`, `_`, `-`, not starting with `.`. */
const RUN_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** How much of the end of `events.jsonl` `listRuns` reads per run, in bytes. */
const EVENTS_TAIL_BYTES = 64 * 1024;

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
      const entries: RunIndexEntry[] = [];
      for (const runId of listRunIds(root)) {
        const entry = await readIndexEntry(join(root, runId), runId, options.staleLockMs);
        if (entry === undefined) continue;
        if (filter.status !== undefined && entry.status !== filter.status) continue;
        if (filter.graph !== undefined && entry.graphName !== filter.graph) continue;
        entries.push(entry);
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
      return readIndexEntry(join(root, runId), runId, options.staleLockMs);
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

/** The index entry of one run directory; undefined when it has no readable manifest or was restarted elsewhere. */
async function readIndexEntry(
  directory: string,
  runId: string,
  staleLockMs: number | undefined,
): Promise<RunIndexEntry | undefined> {
  const store = createFileRunStore({
    logsRoot: directory,
    createDirectory: false,
    ...(staleLockMs === undefined ? {} : { staleLockMs }),
  });
  let manifest: RunManifest | undefined;
  try {
    manifest = await store.readManifest();
  } catch {
    return undefined; // Not JSON: not a run this catalog can describe.
  }
  if (manifest === undefined || typeof manifest.run_id !== 'string') return undefined;
  let checkpoint: Checkpoint | undefined;
  let corrupt = false;
  try {
    checkpoint = await store.readCheckpoint();
  } catch {
    corrupt = true;
  }
  if (checkpoint?.state === 'restarted') return undefined;
  const tail = readEventsTail(join(directory, 'events.jsonl'));
  const status = indexStatus(checkpoint, tail, await store.readLock(), corrupt);
  const running = status === 'running' || status === 'waiting' || status === 'interrupted';
  const currentNode = running ? (checkpoint?.next_node ?? undefined) : checkpoint?.current_node;
  const endedAt = running ? undefined : (tail.final?.timestamp ?? checkpoint?.timestamp);
  return {
    runId,
    graphName: manifest.graph_name,
    goal: manifest.goal,
    status,
    startedAt: manifest.started_at,
    ...(currentNode === undefined || currentNode === '' ? {} : { currentNode }),
    ...(endedAt === undefined ? {} : { endedAt }),
    ...(manifest.restarted_from === undefined ? {} : { parentRunId: basename(manifest.restarted_from) }),
    ...(manifest.forked_from === undefined ? {} : { forkedFrom: manifest.forked_from.run_id }),
  };
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
