/**
 * A {@link RunStore} decorator that masks secrets in everything written (DESIGN.md "Secrets"): the manifest, the
 * checkpoint (its context too), the events and the stage status files. Reads pass through, and so do stage files
 * and artifacts: handlers mask what they write there (`runtime.secrets`).
 */
import { createCheckpointMasker } from './mask-checkpoint.js';
import type { SecretMasker } from './redact-secrets.js';
import type { RunStore } from './run-store.js';

/**
 * Wraps `store` so that every write goes through `masker.mask` (known values, token shapes and values under
 * secret-named keys become `[REDACTED]`). The masked copy is written; the caller's objects are not changed.
 */
export function createMaskingRunStore(store: RunStore, masker: SecretMasker): RunStore {
  const maskCheckpoint = createCheckpointMasker(masker);
  return {
    logsRoot: store.logsRoot,
    readManifest: () => store.readManifest(),
    writeManifest: (manifest) => store.writeManifest(masker.mask(manifest)),
    readCheckpoint: () => store.readCheckpoint(),
    readCheckpointHistory: () => store.readCheckpointHistory(),
    readLastEventSeq: () => store.readLastEventSeq(),
    acquireLock: (options) => store.acquireLock(options),
    readLock: () => store.readLock(),
    writeCheckpoint: (checkpoint) => store.writeCheckpoint(maskCheckpoint(checkpoint)),
    appendEvents: (events) => store.appendEvents(masker.mask(events)),
    readEvents: (options) => store.readEvents(options),
    prepareStage: (stagePath, visit) => store.prepareStage(stagePath, visit),
    writeStageFile: (stagePath, name, data) => store.writeStageFile(stagePath, name, data),
    appendStageFile: (stagePath, name, data) => store.appendStageFile(stagePath, name, data),
    removeStageFile: (stagePath, name) => store.removeStageFile(stagePath, name),
    readStageFile: (stagePath, name) => store.readStageFile(stagePath, name),
    openStageFile: (stagePath, name) => store.openStageFile(stagePath, name),
    listStageFiles: (stagePath) => store.listStageFiles(stagePath),
    listStages: () => store.listStages(),
    writeStageStatus: (stagePath, status) => store.writeStageStatus(stagePath, masker.mask(status)),
    readStageStatus: (stagePath) => store.readStageStatus(stagePath),
    writeArtifact: (id, data) => store.writeArtifact(id, data),
    readArtifact: (id) => store.readArtifact(id),
    removeArtifact: (id) => store.removeArtifact(id),
    listArtifacts: () => store.listArtifacts(),
    child: (relativePath) => createMaskingRunStore(store.child(relativePath), masker),
    localStageDirectory: (stagePath) => store.localStageDirectory(stagePath),
    close: () => store.close(),
  };
}
