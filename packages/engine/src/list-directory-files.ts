/**
 * Listing the files of a directory tree as {@link StoredFileInfo} (the file store, and the scratch directories of
 * other stores). Internal to the engine.
 */
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredFileInfo } from './run-store.js';

/**
 * The regular files under `directory`, recursively, names relative to it with `/`, sorted; none when missing.
 * Symbolic links are not followed (neither to files nor into directories), so the listing never leaves `directory`.
 */
export function listDirectoryFiles(directory: string): StoredFileInfo[] {
  const files: StoredFileInfo[] = [];
  const walk = (path: string, prefix: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return; // Missing, or removed meanwhile.
      throw error;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        walk(join(path, entry.name), `${prefix}${entry.name}/`);
        continue;
      }
      if (!entry.isFile() || isTemporary(entry.name)) continue;
      let stats: ReturnType<typeof statSync>;
      try {
        stats = statSync(join(path, entry.name));
      } catch {
        continue; // Removed meanwhile.
      }
      files.push({
        name: `${prefix}${entry.name}`,
        sizeBytes: stats.size,
        modifiedAt: stats.mtime.toISOString(),
      });
    }
  };
  walk(directory, '');
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
