/**
 * The artifact store contract of spec §5.5: named storage for stage outputs too large for the context.
 * `createArtifactStore` (file-artifact-store.ts) is the implementation the engine uses.
 */
import type { JsonValue } from './json-value.js';

/** Metadata of a stored artifact (spec §5.5 `ArtifactInfo`). */
export interface ArtifactInfo {
  readonly id: string;
  readonly name: string;
  /** Size of the JSON serialisation, in bytes (UTF-8). */
  readonly sizeBytes: number;
  /** When it was stored (ISO-8601). */
  readonly storedAt: string;
  /** True when the data lives in the run store (the file store: `{logsRoot}/artifacts/{id}.json`) rather than in memory. */
  readonly isFileBacked: boolean;
}

/** Options of {@link ArtifactStore.store}. */
export interface StoreArtifactOptions {
  /** Unique id, used as the file name: letters, digits, `.`, `_` and `-` only. */
  readonly id: string;
  /** Display name. Default: the id. */
  readonly name?: string;
  readonly data: JsonValue;
}

/**
 * Named, typed storage for large stage outputs (spec §5.5). Values above the file-backing threshold (default
 * 100 KB) go to the run store (`RunStore.writeArtifact`; the file store writes `{logsRoot}/artifacts/{id}.json`);
 * smaller ones stay in memory.
 */
export interface ArtifactStore {
  /**
   * Stores (or replaces) an artifact.
   * @throws {Error} when the id contains characters other than letters, digits, `.`, `_`, `-`, or the data is not JSON.
   */
  store(options: StoreArtifactOptions): Promise<ArtifactInfo>;
  /**
   * The artifact's data.
   * @throws {ArtifactNotFoundError} when there is no artifact with this id.
   */
  retrieve(id: string): Promise<JsonValue>;
  has(id: string): boolean;
  /** All artifacts, in the order they were first stored. */
  list(): ArtifactInfo[];
  /** Removes an artifact (and its file). Removing a missing id does nothing. */
  remove(id: string): Promise<void>;
  /** Removes every artifact. */
  clear(): Promise<void>;
}
