/**
 * A {@link RunStore} decorator that masks secrets in everything written (DESIGN.md "Secrets"): the manifest, the
 * checkpoint (its context too), the events and the stage status files. Reads pass through.
 */
import type { SecretMasker } from './redact-secrets.js';
import type { RunStore } from './run-store.js';

/**
 * Wraps `store` so that every write goes through `masker.mask` (known values, token shapes and values under
 * secret-named keys become `[REDACTED]`). The masked copy is written; the caller's objects are not changed.
 */
export function createMaskingRunStore(store: RunStore, masker: SecretMasker): RunStore {
  return {
    logsRoot: store.logsRoot,
    readManifest: () => store.readManifest(),
    writeManifest: (manifest) => store.writeManifest(masker.mask(manifest)),
    readCheckpoint: () => store.readCheckpoint(),
    readCheckpointHistory: () => store.readCheckpointHistory(),
    readLastEventSeq: () => store.readLastEventSeq(),
    acquireLock: (options) => store.acquireLock(options),
    readLock: () => store.readLock(),
    writeCheckpoint: (checkpoint) => store.writeCheckpoint(masker.mask(checkpoint)),
    appendEvents: (events) => store.appendEvents(masker.mask(events)),
    readEvents: () => store.readEvents(),
    prepareStageDir: (stagePath, visit) => store.prepareStageDir(stagePath, visit),
    writeStageStatus: (stagePath, status) => store.writeStageStatus(stagePath, masker.mask(status)),
    readStageStatus: (stagePath) => store.readStageStatus(stagePath),
    close: () => store.close(),
  };
}
