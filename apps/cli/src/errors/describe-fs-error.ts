/**
 * File-system faults (disk full, read-only or unreadable run directory) in words, for the one-line errors the CLI
 * prints instead of a stack trace (issue 20 §5).
 */

/** The causes the CLI names, by errno code. */
const FS_CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EIO: 'an input/output error',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EEXIST: 'a file of that name exists',
  ENOTDIR: 'a part of the path is a file, not a directory',
};

/** Whether `error` is a file-system fault of a kind in the table (an `ErrnoException` with such a `code`). */
export function isFsFault(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && Object.hasOwn(FS_CAUSES, code);
}

/** `no space left on the device (ENOSPC)`, or the error's own message for other errors. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && Object.hasOwn(FS_CAUSES, code)) return `${FS_CAUSES[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

/** What to do about a fault, by code: free space, fix permissions. */
export function fsFaultFix(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'Free some space';
  if (code === 'EROFS') return 'Make the file system writable, or run with --logs-dir on a writable one';
  return 'Fix the permissions of the run directory';
}
