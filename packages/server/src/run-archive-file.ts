/**
 * The archive mark of a run in a runs directory (README "Archiving runs"): a small file the server owns in the run
 * directory, written atomically, so an archived run stays archived across restarts. The engine never reads it.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '@attractor/engine/internal';

/** The file that marks a run archived; it holds `{ "archivedAt": "<ISO-8601>" }`. */
export const RUN_ARCHIVE_FILE = 'server-archived.json';

/** Whether the run in directory `runDir` is archived (its {@link RUN_ARCHIVE_FILE} exists). */
export function isRunArchived(runDir: string): boolean {
  return existsSync(join(runDir, RUN_ARCHIVE_FILE));
}

/** Options of {@link writeRunArchived}. */
export interface WriteRunArchivedOptions {
  /** The run directory. */
  readonly runDir: string;
  /** When it was archived; undefined unarchives the run (removes the file; nothing happens when there is none). */
  readonly archivedAt: Date | undefined;
}

/**
 * Marks the run in `runDir` archived (writes {@link RUN_ARCHIVE_FILE} atomically, flushed to disk) or not (removes
 * it). Idempotent: archiving an archived run keeps its first time.
 * @throws the file system's error (`ENOSPC`, `EACCES`, …) when the file cannot be written or removed.
 */
export function writeRunArchived(options: WriteRunArchivedOptions): void {
  const path = join(options.runDir, RUN_ARCHIVE_FILE);
  if (options.archivedAt === undefined) {
    rmSync(path, { force: true });
    return;
  }
  if (existsSync(path)) return;
  writeFileAtomicSync(path, `${JSON.stringify({ archivedAt: options.archivedAt.toISOString() })}\n`, {
    fsync: true,
  });
}
