/**
 * Checks of the names that cross the `RunStore` contract (stage paths, stage file names, artifact ids) and the
 * conversion of {@link BlobData} to bytes, shared by the stores of this package and usable by other stores.
 */
import { InvalidStoreNameError, type StoreNameKind } from './errors/invalid-store-name-error.js';
import type { BlobData } from './run-store.js';

const ARTIFACT_ID = /^[A-Za-z0-9._-]+$/;
/** An empty, `.` or `..` segment of a `/`-separated name (checked on every stage: no split per call). */
const BAD_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;

/**
 * Returns `name` when it is a relative `/`-separated name without empty, `.` or `..` segments, and (except for
 * stage paths, made of node ids) without `\`.
 * @throws {InvalidStoreNameError} otherwise.
 */
export function checkRelativeName(kind: StoreNameKind, name: string): string {
  // A stage path is made of node ids, which may hold a `\`; a file name may not (a separator on Windows).
  if (name === '' || name.includes('\0') || (kind !== 'stage path' && name.includes('\\'))) {
    throw new InvalidStoreNameError({ kind, value: name });
  }
  if (BAD_SEGMENT.test(name)) throw new InvalidStoreNameError({ kind, value: name });
  return name;
}

/**
 * The run id in a run's location: what follows the last `#` of a store key (`postgres://…#<run id>`), else the last
 * segment of a run directory's path. Internal to the engine's packages (`@attractor/engine/internal`).
 */
export function runIdOfLocation(location: string): string {
  const hash = location.lastIndexOf('#');
  if (hash >= 0) return location.slice(hash + 1);
  const segments = location.split(/[\\/]/).filter((segment) => segment !== '');
  return segments[segments.length - 1] ?? location;
}

/**
 * Returns `id` when it is a valid artifact id (letters, digits, `.`, `_`, `-`; not `.` or `..`).
 * @throws {InvalidStoreNameError} otherwise.
 */
export function checkArtifactId(id: string): string {
  if (!ARTIFACT_ID.test(id) || id === '.' || id === '..')
    throw new InvalidStoreNameError({ kind: 'artifact id', value: id });
  return id;
}

/** The bytes of a blob: text as UTF-8, bytes as they are, a stream concatenated. */
export async function collectBlobData(data: BlobData): Promise<Uint8Array> {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof Uint8Array) return data;
  const chunks: Uint8Array[] = [];
  for await (const chunk of data) chunks.push(chunk);
  return Buffer.concat(chunks);
}
