/**
 * An in-memory {@link RunStore} for tests and embedders that do not want files.
 */
import { parseCheckpoint } from '../checkpoint-schema.js';
import { RunLockedError } from '../errors/run-locked-error.js';
import type { PipelineEvent } from '../pipeline-event.js';
import type { RunLockHolder } from '../run-lock.js';
import type { Checkpoint, RunManifest, RunStore, StageStatusFile } from '../run-store.js';

/** A {@link RunStore} whose state is inspectable. */
export interface MemoryRunStore extends RunStore {
  readonly events: PipelineEvent[];
  /** Every checkpoint written, oldest first. */
  readonly checkpoints: Checkpoint[];
  readonly statuses: Map<string, StageStatusFile>;
  /** Stage paths prepared, with the visit number. */
  readonly preparedStages: { stagePath: string; visit: number }[];
  manifest: RunManifest | undefined;
  /** The holder of the run lock, while one is held. */
  lockHolder: RunLockHolder | undefined;
}

/**
 * Creates a {@link MemoryRunStore}. Stage directories are not created on disk, so handlers that write files need
 * the file store.
 */
export function createMemoryRunStore(logsRoot = '/memory/run'): MemoryRunStore {
  const store: MemoryRunStore = {
    logsRoot,
    events: [],
    checkpoints: [],
    statuses: new Map(),
    preparedStages: [],
    manifest: undefined,
    lockHolder: undefined,
    readManifest: async () => store.manifest,
    writeManifest(manifest) {
      store.manifest = structuredClone(manifest);
    },
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
    readEvents: async () => [...store.events],
    prepareStageDir(stagePath, visit) {
      store.preparedStages.push({ stagePath, visit });
      store.statuses.delete(stagePath);
      return `${logsRoot}/${stagePath}`;
    },
    writeStageStatus(stagePath, status) {
      store.statuses.set(stagePath, structuredClone(status));
    },
    readStageStatus: async (stagePath) => store.statuses.get(stagePath),
    async acquireLock({ since }) {
      if (store.lockHolder !== undefined) throw new RunLockedError({ logsRoot, holder: store.lockHolder });
      let holder: RunLockHolder = { pid: process.pid, host: 'memory', since };
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
    close() {},
  };
  return store;
}
