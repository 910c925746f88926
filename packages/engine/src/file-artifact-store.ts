/**
 * The artifact store of spec §5.5: in memory up to a threshold, in the run's store above it (`RunStore.writeArtifact`;
 * the file store keeps `{logsRoot}/artifacts/{id}.json`).
 */
import type { ArtifactInfo, ArtifactStore } from './artifact-store.js';
import type { Clock } from './clock.js';
import { ArtifactNotFoundError } from './errors/artifact-not-found-error.js';
import { createFileRunStore } from './file-run-store.js';
import { findNonJson, type JsonValue } from './json-value.js';
import type { RunStore } from './run-store.js';
import { checkArtifactId } from './store-names.js';

/** The default file-backing threshold of spec §5.5: 100 KB. */
export const DEFAULT_ARTIFACT_THRESHOLD_BYTES = 100 * 1024;

/** Options of {@link createArtifactStore}. */
export interface ArtifactStoreOptions {
  /** The run's store: artifacts above the threshold go there (`writeArtifact`). Takes precedence over `baseDir`. */
  readonly runStore?: RunStore;
  /**
   * A run directory: artifacts above the threshold go to `{baseDir}/artifacts/{id}.json` (a file store on it).
   * Without `runStore` and `baseDir`, everything stays in memory.
   */
  readonly baseDir?: string;
  /** Size above which an artifact is file-backed, in bytes. Default: 102400 (100 KB). */
  readonly thresholdBytes?: number;
  /** For `storedAt`. */
  readonly clock: Clock;
}

/**
 * Creates an {@link ArtifactStore} (spec §5.5).
 *
 * @example
 * const artifacts = createArtifactStore({ runStore: createFileRunStore({ logsRoot }), clock: systemClock });
 * await artifacts.store({ id: 'report', data: { lines: [] } });
 */
export function createArtifactStore(options: ArtifactStoreOptions): ArtifactStore {
  const threshold = options.thresholdBytes ?? DEFAULT_ARTIFACT_THRESHOLD_BYTES;
  const runStore =
    options.runStore ??
    (options.baseDir === undefined
      ? undefined
      : createFileRunStore({ logsRoot: options.baseDir, createDirectory: false }));
  const entries = new Map<string, { info: ArtifactInfo; data?: JsonValue }>();

  return {
    async store({ id, name, data }) {
      checkArtifactId(id);
      const problem = findNonJson(data);
      if (problem !== undefined) throw new Error(`Artifact "${id}" is not JSON (${problem}).`);
      const text = JSON.stringify(data);
      const sizeBytes = Buffer.byteLength(text, 'utf8');
      const isFileBacked = sizeBytes > threshold && runStore !== undefined;
      const previous = entries.get(id);
      if (previous?.info.isFileBacked === true && !isFileBacked) await runStore?.removeArtifact(id);
      const info: ArtifactInfo = {
        id,
        name: name ?? id,
        sizeBytes,
        storedAt: new Date(options.clock.now()).toISOString(),
        isFileBacked,
      };
      if (isFileBacked) {
        await runStore!.writeArtifact(id, text);
        entries.set(id, { info });
      } else entries.set(id, { info, data: structuredClone(data) });
      return info;
    },
    async retrieve(id) {
      const entry = entries.get(id);
      if (entry === undefined)
        throw new ArtifactNotFoundError({ artifactId: id, known: [...entries.keys()] });
      if (entry.info.isFileBacked) {
        const bytes = await runStore!.readArtifact(id);
        if (bytes === undefined)
          throw new ArtifactNotFoundError({ artifactId: id, known: [...entries.keys()] });
        return JSON.parse(Buffer.from(bytes).toString('utf8')) as JsonValue;
      }
      return structuredClone(entry.data as JsonValue);
    },
    has: (id) => entries.has(id),
    list: () => [...entries.values()].map((entry) => entry.info),
    async remove(id) {
      if (entries.get(id)?.info.isFileBacked === true) await runStore!.removeArtifact(id);
      entries.delete(id);
    },
    async clear() {
      for (const entry of entries.values())
        if (entry.info.isFileBacked) await runStore!.removeArtifact(entry.info.id);
      entries.clear();
    },
  };
}
