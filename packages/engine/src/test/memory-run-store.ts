/**
 * An in-memory {@link RunStore} for tests and embedders that do not want a run directory. Stage files and artifacts
 * are byte arrays in maps; `localStageDirectory` hands out a scratch directory (under the OS temp directory, removed
 * by `close()`) whose files are copied into the store on `sync()`, so that handlers which give a real directory to a
 * program (tool commands, agent CLIs) work too.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseCheckpoint } from '../checkpoint-schema.js';
import { RunLockedError } from '../errors/run-locked-error.js';
import type { JsonValue } from '../json-value.js';
import { compareNames, listDirectoryFiles } from '../list-directory-files.js';
import type { PipelineEvent } from '../pipeline-event.js';
import { isProcessAlive } from '../process-groups.js';
import type { RunLockHolder } from '../run-lock.js';
import type { Checkpoint, RunManifest, RunStore, StageStatusFile, StoredFileInfo } from '../run-store.js';
import { checkArtifactId, checkRelativeName, collectBlobData } from '../store-names.js';

/** A {@link RunStore} whose state is inspectable. */
export interface MemoryRunStore extends RunStore {
  readonly events: PipelineEvent[];
  /** Every checkpoint written, oldest first. */
  readonly checkpoints: Checkpoint[];
  /** The statuses the engine wrote with `writeStageStatus`, by stage path (the current visit's). */
  readonly statuses: Map<string, StageStatusFile>;
  /** Stage paths prepared, with the visit number. */
  readonly preparedStages: { stagePath: string; visit: number }[];
  /** Stage files by `{stagePath}/{name}` (the engine's `status.json` too). */
  readonly files: Map<string, StoredBlob>;
  /** Artifacts by id. */
  readonly artifacts: Map<string, StoredBlob>;
  manifest: RunManifest | undefined;
  /** What `writeOutput` recorded. */
  output: Record<string, JsonValue> | undefined;
  /** The holder of the run lock, while one is held. A holder on this host whose pid is gone is taken over. */
  lockHolder: RunLockHolder | undefined;
  child(relativePath: string): MemoryRunStore;
}

/** A blob kept by the {@link MemoryRunStore}. */
export interface StoredBlob {
  readonly bytes: Uint8Array;
  /** ISO-8601. */
  readonly modifiedAt: string;
}

const VISITS = 'visits';
const STATUS_FILE = 'status.json';

/**
 * Creates a {@link MemoryRunStore}. `logsRoot` only identifies it (in messages and events).
 *
 * @example
 * const store = createMemoryRunStore();
 * await runPipeline({ graph, registry, logsRoot: '/memory/run', createRunStore: () => store });
 */
export function createMemoryRunStore(logsRoot = '/memory/run'): MemoryRunStore {
  const files = new Map<string, StoredBlob>();
  const stages = new Set<string>();
  const children = new Map<string, MemoryRunStore>();
  let scratchRoot: string | undefined;

  const keyOf = (stagePath: string, name: string) =>
    `${checkRelativeName('stage path', stagePath)}/${checkRelativeName('stage file name', name)}`;
  const put = (stagePath: string, name: string, bytes: Uint8Array) => {
    files.set(keyOf(stagePath, name), {
      bytes: Uint8Array.from(bytes),
      modifiedAt: new Date().toISOString(),
    });
    if (!name.startsWith(`${VISITS}/`)) stages.add(stagePath);
  };
  /** The stage's files as [name, blob], names relative to the stage. */
  const stageFiles = (stagePath: string): [string, StoredBlob][] => {
    const prefix = `${checkRelativeName('stage path', stagePath)}/`;
    const found: [string, StoredBlob][] = [];
    for (const [key, blob] of files) if (key.startsWith(prefix)) found.push([key.slice(prefix.length), blob]);
    return found;
  };

  const store: MemoryRunStore = {
    logsRoot,
    events: [],
    checkpoints: [],
    statuses: new Map(),
    preparedStages: [],
    files,
    artifacts: new Map(),
    manifest: undefined,
    output: undefined,
    lockHolder: undefined,
    readManifest: async () => (store.manifest === undefined ? undefined : structuredClone(store.manifest)),
    writeManifest(manifest) {
      store.manifest = structuredClone(manifest);
    },
    writeOutput(output) {
      store.output = structuredClone(output);
    },
    readOutput: async () => (store.output === undefined ? undefined : structuredClone(store.output)),
    readCheckpoint: async () => {
      const latest = store.checkpoints.at(-1);
      return latest === undefined
        ? undefined
        : parseCheckpoint(structuredClone(latest), `${logsRoot} checkpoint`);
    },
    writeCheckpoint(checkpoint) {
      store.checkpoints.push(JSON.parse(JSON.stringify(checkpoint)) as Checkpoint);
    },
    readCheckpointHistory: async () =>
      store.checkpoints.map((checkpoint, index) =>
        parseCheckpoint(structuredClone(checkpoint), `${logsRoot} checkpoint ${index}`),
      ),
    readLastEventSeq: async () => store.events.at(-1)?.seq ?? 0,
    appendEvents(events) {
      store.events.push(...events);
    },
    readEvents: async (options) => {
      const afterSeq = options?.afterSeq ?? 0;
      return store.events.filter((event) => event.seq > afterSeq);
    },
    prepareStage(stagePath, visit) {
      store.preparedStages.push({ stagePath, visit });
      store.statuses.delete(stagePath);
      if (visit <= 1) return;
      const earlier = stageFiles(stagePath).filter(([name]) => !name.startsWith(`${VISITS}/`));
      if (earlier.length === 0) return;
      let archive = `${VISITS}/${visit - 1}`;
      for (let suffix = 2; stageFiles(stagePath).some(([name]) => name.startsWith(`${archive}/`)); suffix++) {
        archive = `${VISITS}/${visit - 1}-${suffix}`;
      }
      for (const [name, blob] of earlier) {
        files.delete(keyOf(stagePath, name));
        files.set(keyOf(stagePath, `${archive}/${name}`), blob);
      }
      stages.delete(stagePath);
    },
    async writeStageFile(stagePath, name, data) {
      put(stagePath, name, await collectBlobData(data));
    },
    async appendStageFile(stagePath, name, data) {
      const previous = files.get(keyOf(stagePath, name))?.bytes;
      const added = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      put(stagePath, name, previous === undefined ? added : Buffer.concat([previous, added]));
    },
    async removeStageFile(stagePath, name) {
      files.delete(keyOf(stagePath, name));
    },
    async readStageFile(stagePath, name) {
      const blob = files.get(keyOf(stagePath, name));
      return blob === undefined ? undefined : Uint8Array.from(blob.bytes);
    },
    async openStageFile(stagePath, name) {
      const blob = files.get(keyOf(stagePath, name));
      if (blob === undefined) return undefined;
      return chunksOf(blob.bytes);
    },
    async listStageFiles(stagePath) {
      return stageFiles(stagePath)
        .map(([name, blob]) => infoOf(name, blob))
        .sort((left, right) => compareNames(left.name, right.name));
    },
    async listStages() {
      return [...stages].sort(compareNames);
    },
    writeStageStatus(stagePath, status) {
      store.statuses.set(stagePath, structuredClone(status));
      put(stagePath, STATUS_FILE, Buffer.from(`${JSON.stringify(status, null, 2)}\n`, 'utf8'));
    },
    async readStageStatus(stagePath) {
      const blob = files.get(keyOf(stagePath, STATUS_FILE));
      if (blob === undefined) return undefined;
      return JSON.parse(Buffer.from(blob.bytes).toString('utf8')) as StageStatusFile;
    },
    async writeArtifact(id, data) {
      store.artifacts.set(checkArtifactId(id), {
        bytes: Uint8Array.from(await collectBlobData(data)),
        modifiedAt: new Date().toISOString(),
      });
    },
    async readArtifact(id) {
      const blob = store.artifacts.get(checkArtifactId(id));
      return blob === undefined ? undefined : Uint8Array.from(blob.bytes);
    },
    async removeArtifact(id) {
      store.artifacts.delete(checkArtifactId(id));
    },
    async listArtifacts() {
      return [...store.artifacts]
        .map(([id, blob]) => infoOf(id, blob))
        .sort((left, right) => compareNames(left.name, right.name));
    },
    child(relativePath) {
      const key = checkRelativeName('child path', relativePath);
      let child = children.get(key);
      if (child === undefined) {
        child = createMemoryRunStore(`${logsRoot}/${key}`);
        children.set(key, child);
      }
      return child;
    },
    localStageDirectory(stagePath) {
      scratchRoot ??= mkdtempSync(join(tmpdir(), 'attractor-memory-store-'));
      const path = join(scratchRoot, checkRelativeName('stage path', stagePath));
      rmSync(path, { recursive: true, force: true });
      mkdirSync(path, { recursive: true });
      // What the directory held at the last sync: only files changed since then go into the store, so that a file
      // removed from the store (a stale status.json) is not copied back from an unchanged copy here.
      const known = new Map<string, Buffer>();
      for (const [name, blob] of stageFiles(stagePath)) {
        if (name.startsWith(`${VISITS}/`)) continue;
        mkdirSync(dirname(join(path, name)), { recursive: true });
        writeFileSync(join(path, name), blob.bytes);
        known.set(name, Buffer.from(blob.bytes));
      }
      return {
        path,
        async sync() {
          // New and changed files go into the store; files the program removed stay (evidence is kept).
          for (const file of listDirectoryFiles(path)) {
            if (file.name.startsWith(`${VISITS}/`)) continue;
            let bytes: Buffer;
            try {
              bytes = readFileSync(join(path, file.name));
            } catch {
              continue; // Removed meanwhile.
            }
            if (known.get(file.name)?.equals(bytes) === true) continue;
            known.set(file.name, bytes);
            put(stagePath, file.name, bytes);
          }
        },
      };
    },
    async acquireLock({ since }) {
      const current = store.lockHolder;
      if (current !== undefined && (current.host !== hostname() || isProcessAlive(current.pid))) {
        throw new RunLockedError({ logsRoot, holder: current });
      }
      let holder: RunLockHolder = { pid: process.pid, host: hostname(), since };
      store.lockHolder = holder;
      return {
        get holder() {
          return holder;
        },
        async setProcessGroups(processGroupIds) {
          const held = store.lockHolder === holder;
          holder = { ...holder, process_groups: [...processGroupIds] };
          if (held) store.lockHolder = holder;
        },
        async release() {
          if (store.lockHolder === holder) store.lockHolder = undefined;
        },
      };
    },
    readLock: async () => store.lockHolder,
    close() {
      if (scratchRoot !== undefined) rmSync(scratchRoot, { recursive: true, force: true });
      scratchRoot = undefined;
    },
  };
  return store;
}

function infoOf(name: string, blob: StoredBlob): StoredFileInfo {
  return { name, sizeBytes: blob.bytes.byteLength, modifiedAt: blob.modifiedAt };
}

/** The bytes as a stream of chunks of at most 64 KiB. */
async function* chunksOf(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  const copy = Uint8Array.from(bytes);
  for (let offset = 0; offset < copy.byteLength; offset += 65_536)
    yield copy.subarray(offset, offset + 65_536);
}
