/**
 * The artifact store of spec §5.5: in memory up to a threshold, `{baseDir}/artifacts/{id}.json` above it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ArtifactInfo, ArtifactStore } from './artifact-store.js';
import type { Clock } from './clock.js';
import { ArtifactNotFoundError } from './errors/artifact-not-found-error.js';
import { findNonJson, type JsonValue } from './json-value.js';

/** The default file-backing threshold of spec §5.5: 100 KB. */
export const DEFAULT_ARTIFACT_THRESHOLD_BYTES = 100 * 1024;

/** Options of {@link createArtifactStore}. */
export interface ArtifactStoreOptions {
  /** The run directory; artifacts above the threshold go to `{baseDir}/artifacts/`. Unset: everything in memory. */
  readonly baseDir?: string;
  /** Size above which an artifact is file-backed, in bytes. Default: 102400 (100 KB). */
  readonly thresholdBytes?: number;
  /** For `storedAt`. */
  readonly clock: Clock;
}

const ID_PATTERN = /^[A-Za-z0-9._-]+$/;

/**
 * Creates an {@link ArtifactStore} (spec §5.5).
 *
 * @example
 * const artifacts = createArtifactStore({ baseDir: logsRoot, clock: systemClock });
 * await artifacts.store({ id: 'report', data: { lines: [] } });
 */
export function createArtifactStore(options: ArtifactStoreOptions): ArtifactStore {
  const threshold = options.thresholdBytes ?? DEFAULT_ARTIFACT_THRESHOLD_BYTES;
  const entries = new Map<string, { info: ArtifactInfo; data?: JsonValue; path?: string }>();

  const pathOf = (id: string) => join(options.baseDir!, 'artifacts', `${id}.json`);

  return {
    async store({ id, name, data }) {
      if (!ID_PATTERN.test(id) || id === '.' || id === '..') {
        throw new Error(`Artifact id "${id}" is invalid: use letters, digits, ".", "_" and "-" only.`);
      }
      const problem = findNonJson(data);
      if (problem !== undefined) throw new Error(`Artifact "${id}" is not JSON (${problem}).`);
      const text = JSON.stringify(data);
      const sizeBytes = Buffer.byteLength(text, 'utf8');
      const isFileBacked = sizeBytes > threshold && options.baseDir !== undefined;
      const previous = entries.get(id);
      if (previous?.path !== undefined && !isFileBacked) rmSync(previous.path, { force: true });
      const info: ArtifactInfo = {
        id,
        name: name ?? id,
        sizeBytes,
        storedAt: new Date(options.clock.now()).toISOString(),
        isFileBacked,
      };
      if (isFileBacked) {
        const path = pathOf(id);
        mkdirSync(join(options.baseDir!, 'artifacts'), { recursive: true });
        writeFileSync(path, text);
        entries.set(id, { info, path });
      } else entries.set(id, { info, data: structuredClone(data) });
      return info;
    },
    async retrieve(id) {
      const entry = entries.get(id);
      if (entry === undefined)
        throw new ArtifactNotFoundError({ artifactId: id, known: [...entries.keys()] });
      if (entry.path !== undefined) return JSON.parse(readFileSync(entry.path, 'utf8')) as JsonValue;
      return structuredClone(entry.data as JsonValue);
    },
    has: (id) => entries.has(id),
    list: () => [...entries.values()].map((entry) => entry.info),
    async remove(id) {
      const entry = entries.get(id);
      if (entry?.path !== undefined) rmSync(entry.path, { force: true });
      entries.delete(id);
    },
    async clear() {
      for (const entry of entries.values()) if (entry.path !== undefined) rmSync(entry.path, { force: true });
      entries.clear();
    },
  };
}
