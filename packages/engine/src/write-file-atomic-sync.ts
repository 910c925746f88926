/**
 * Atomic replacement of a small file (docs/architecture.md "Checkpoint"; issue 20 §5): the text goes to a
 * temporary file in the same directory, which is then renamed over the target, so a full disk or a crash
 * leaves the previous file (or none), never an empty or torn one. Two system calls more than a plain write;
 * the `write-file-atomic` package does the same with a realpath, a stat and an exit hook per call, which
 * doubled the engine's cost per node.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

let counter = 0;

/**
 * Replaces `path` with `text` (a string is written as UTF-8) atomically (temp file `.<name>.<pid>.<n>.tmp` beside it, then rename).
 * With `fsync`, the temp file is flushed to disk before the rename. On failure the temp file is removed and the
 * error (`ENOSPC`, `EACCES`, `EROFS`, ... with its `path`) is thrown.
 */
export function writeFileAtomicSync(
  path: string,
  text: string | Uint8Array,
  options: { readonly fsync?: boolean } = {},
): void {
  counter += 1;
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${counter}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'w');
    // A short write (the disk filled up mid-way) must not be renamed into place: write until all is written, so
    // the next call reports ENOSPC.
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
    if (options.fsync === true) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Writes `text` (a string is written as UTF-8) to `path` when nothing has that name yet: the file is created
 * exclusively and written in place — no temp file and no rename, two system calls fewer than
 * {@link writeFileAtomicSync}. A failed write (`ENOSPC`) removes the partial file before the error is thrown, so a
 * full disk leaves no file rather than a torn one; only a process killed in the middle of the write can leave a
 * partial file, which readers of a never-completed stage must tolerate. With `fsync`, the file is flushed to disk
 * before it is closed. Returns false, writing nothing, when `path` exists (replace it with
 * {@link writeFileAtomicSync}); other errors (`ENOENT` for a missing directory, `EACCES`, ...) are thrown.
 */
export function writeNewFileSync(
  path: string,
  text: string | Uint8Array,
  options: { readonly fsync?: boolean } = {},
): boolean {
  try {
    // A string with an explicit `encoding` takes Node's one-native-call path (open, write, close); that path ignores
    // `flush`, so an fsync'd write goes the JavaScript way (open, write, fsync, close).
    writeFileSync(
      path,
      text,
      options.fsync === true ? { flag: 'wx', flush: true } : { flag: 'wx', encoding: 'utf8' },
    );
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // The file was created by this call (`wx`) when the failure came after the open: remove what was written.
    if (code !== 'ENOENT' && code !== 'EACCES' && code !== 'EPERM') rmSync(path, { force: true });
    throw error;
  }
}
