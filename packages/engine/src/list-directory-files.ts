/**
 * Listing the files of a directory tree as {@link StoredFileInfo} (the file store, and the scratch directories of
 * other stores). Internal to the engine.
 */
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { StoredFileInfo } from './run-store.js';

/** The regular files under `directory`, recursively, names relative to it with `/`, sorted; none when missing. */
export function listDirectoryFiles(directory: string): StoredFileInfo[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(directory, { recursive: true, withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
  const files: StoredFileInfo[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || isTemporary(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(path);
    } catch {
      continue; // Removed meanwhile.
    }
    files.push({
      name: relative(directory, path).split(sep).join('/'),
      sizeBytes: stats.size,
      modifiedAt: stats.mtime.toISOString(),
    });
  }
  return files.sort((left, right) => compareNames(left.name, right.name));
}

/** Temp files of atomic writes in progress (`.name.pid.n.tmp`, `.pid.n.stream.tmp`). */
export function isTemporary(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

/** Orders names by UTF-16 code units (not locale), the order every store lists in. */
export function compareNames(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
