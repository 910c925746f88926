/**
 * A {@link RunStore} decorator that masks secrets in everything written (docs/architecture.md "Secrets"): the
 * manifest, the checkpoint (its context too), the output, the events and the stage status files. Reads pass
 * through, and so do stage files and artifacts: handlers mask what they write there (`runtime.secrets`).
 */
import { createCheckpointMasker, maskEvent, maskManifest, maskStageStatus } from './mask-checkpoint.js';
import type { SecretMasker } from './redact-secrets.js';
import type { RunStore } from './run-store.js';

/**
 * Wraps `store` so that every write goes through `masker.mask` (known values, token shapes and values under
 * secret-named keys become `[REDACTED]`). The masked copy is written; the caller's objects are not changed. The
 * checkpoint's and the manifest's structure — node ids, run ids, run directories, hashes, counters — is written as it
 * is, and so are the node ids, stage paths and question ids of events and `status.json` (mask-checkpoint.ts): a secret
 * equal to a node id must not break the resume, `inspect` or the server. A store that already masks with
 * `masker` is returned as it is.
 */
export function createMaskingRunStore(store: RunStore, masker: SecretMasker): RunStore {
  if (maskingStores.get(store)?.masker === masker) return store;
  const maskCheckpoint = createCheckpointMasker(masker);
  const masking: RunStore = {
    logsRoot: store.logsRoot,
    readManifest: () => store.readManifest(),
    writeManifest: (manifest) => store.writeManifest(maskManifest(manifest, masker)),
    ...(store.writeOutput === undefined
      ? {}
      : { writeOutput: (output) => store.writeOutput?.(masker.mask(output)) }),
    ...(store.readOutput === undefined
      ? {}
      : { readOutput: () => store.readOutput?.() ?? Promise.resolve(undefined) }),
    readCheckpoint: () => store.readCheckpoint(),
    readCheckpointHistory: () => store.readCheckpointHistory(),
    readLastEventSeq: () => store.readLastEventSeq(),
    acquireLock: (options) => store.acquireLock(options),
    readLock: () => store.readLock(),
    writeCheckpoint: (checkpoint) => store.writeCheckpoint(maskCheckpoint(checkpoint)),
    appendEvents: (events) => store.appendEvents(events.map((event) => maskEvent(event, masker))),
    readEvents: (options) => store.readEvents(options),
    prepareStage: (stagePath, visit) => store.prepareStage(stagePath, visit),
    writeStageFile: (stagePath, name, data) => store.writeStageFile(stagePath, name, data),
    appendStageFile: (stagePath, name, data) => store.appendStageFile(stagePath, name, data),
    removeStageFile: (stagePath, name) => store.removeStageFile(stagePath, name),
    readStageFile: (stagePath, name) => store.readStageFile(stagePath, name),
    openStageFile: (stagePath, name) => store.openStageFile(stagePath, name),
    listStageFiles: (stagePath) => store.listStageFiles(stagePath),
    listStages: () => store.listStages(),
    writeStageStatus: (stagePath, status) =>
      store.writeStageStatus(stagePath, maskStageStatus(status, masker)),
    readStageStatus: (stagePath) => store.readStageStatus(stagePath),
    writeArtifact: (id, data) => store.writeArtifact(id, data),
    readArtifact: (id) => store.readArtifact(id),
    removeArtifact: (id) => store.removeArtifact(id),
    listArtifacts: () => store.listArtifacts(),
    child: (relativePath) => createMaskingRunStore(store.child(relativePath), masker),
    localStageDirectory: (stagePath) => store.localStageDirectory(stagePath),
    close: () => store.close(),
  };
  maskingStores.set(masking, { inner: store, masker });
  return masking;
}

/** The masking stores made by {@link createMaskingRunStore}: the store each wraps and its masker. */
const maskingStores = new WeakMap<RunStore, { readonly inner: RunStore; readonly masker: SecretMasker }>();

/**
 * Where to append events that `masker` has already masked (the event bus masks every event before it delivers
 * it): the store `store` wraps when `store` masks with the same `masker`, so each event is masked once; `store`
 * itself otherwise. Internal to the engine.
 */
export function eventSinkOf(store: RunStore, masker: SecretMasker): Pick<RunStore, 'appendEvents'> {
  const wrapped = maskingStores.get(store);
  return wrapped !== undefined && wrapped.masker === masker ? wrapped.inner : store;
}
