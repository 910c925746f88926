/**
 * `checkpoint.json` on disk (docs/architecture.md "Checkpoint": write a complete temp file in the same
 * directory, optionally fsync, rename it into place), for the file run store.
 *
 * Writing a fresh temp file for every checkpoint allocates an inode and frees the replaced one on every node. On
 * ext4 without a journal (common on VMs and CI runners) each inode allocation scans past every recently freed inode
 * of its block group, so a long run slows down its own later stages and everything else in that group. Instead the
 * writer keeps two spare files open, `.checkpoint.json.0` and `.checkpoint.json.1`, and alternates between them:
 *
 * 1. overwrite the spare that is *not* the published checkpoint, in place through its open descriptor (fsync
 *    when asked);
 * 2. hard-link it as `.checkpoint.json.tmp`;
 * 3. rename `.checkpoint.json.tmp` over `checkpoint.json`. The replaced inode keeps its spare name, so nothing is
 *    freed, and `checkpoint.json` never disappears.
 *
 * A spare is only written while no public name points at it, so a reader in this process sees the previous or the
 * new checkpoint. A reader in another process that opened `checkpoint.json` just before two more checkpoints were
 * published could see the file change under it; {@link readCheckpointText} detects that and reads again. Where hard
 * links are not available, the writer falls back to a fresh temp file per checkpoint (write, unlink the old
 * checkpoint, rename). `close()` removes the spare names; `checkpoint.json` stays.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** The name of the checkpoint file in a run directory (spec §5.6). */
export const CHECKPOINT_FILE = 'checkpoint.json';
/** The name a new checkpoint has just before it is renamed into place. */
export const CHECKPOINT_TEMP_FILE = '.checkpoint.json.tmp';

/** Options of {@link createCheckpointFile}. Internal to the engine. */
export interface CheckpointFileOptions {
  /** The run directory (must exist). */
  readonly directory: string;
  /** fsync the new checkpoint and the directory, so that a power loss cannot lose it. Default: false. */
  readonly fsync?: boolean;
  /** Use the two spare files (hard links). `false` forces a fresh temp file per checkpoint. Default: true. */
  readonly hardLinks?: boolean;
}

/** Writes `checkpoint.json` atomically. Internal to the engine. */
export interface CheckpointFile {
  /** Replaces `checkpoint.json` with `bytes` (the checkpoint's UTF-8 text; the caller encodes it) atomically. */
  write(bytes: Uint8Array): void;
  /** Closes the spare files and removes their names. A later `write` starts over. */
  close(): void;
}

interface Spare {
  readonly path: string;
  readonly fd: number;
  /** Bytes currently in the file. */
  length: number;
}

/** Error codes meaning "this file system cannot do the hard-link scheme": the writer then falls back. */
const NO_HARD_LINKS = new Set([
  'EPERM',
  'EACCES',
  'ENOTSUP',
  'EOPNOTSUPP',
  'ENOSYS',
  'EXDEV',
  'EMLINK',
  'EBUSY',
]);

/** Creates the atomic checkpoint writer of one run directory. Internal to the engine. */
export function createCheckpointFile(options: CheckpointFileOptions): CheckpointFile {
  const { directory } = options;
  const fsync = options.fsync ?? false;
  const checkpointPath = join(directory, CHECKPOINT_FILE);
  const temporaryPath = join(directory, CHECKPOINT_TEMP_FILE);
  let spares: Spare[] | undefined;
  let nextSpare = 0;
  let hardLinks = options.hardLinks ?? true;

  /** A temp file left by a crash: it becomes the checkpoint when there is no other, and is dropped otherwise. */
  const settleTemporary = () => {
    try {
      linkSync(temporaryPath, checkpointPath);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return; // No temp file.
      if (code !== 'EEXIST') throw error;
    }
    // checkpoint.json exists now (it did already, or is the promoted temp file): the temp name can go.
    unlinkSync(temporaryPath);
  };

  const openSpares = (): Spare[] => {
    settleTemporary();
    return [0, 1].map((index) => {
      const path = join(directory, `.${CHECKPOINT_FILE}.${index}`);
      // A spare left by a crashed process may share its inode with checkpoint.json: unlink it, never truncate it.
      unlinkIfPresent(path);
      return { path, fd: openSync(path, 'wx'), length: 0 };
    });
  };

  const closeSpares = () => {
    if (spares === undefined) return;
    for (const spare of spares) {
      closeSync(spare.fd);
      unlinkIfPresent(spare.path);
    }
    spares = undefined;
    nextSpare = 0;
  };

  const writeSpare = (bytes: Uint8Array) => {
    spares ??= openSpares();
    const spare = spares[nextSpare]!;
    const length = bytes.length;
    for (let offset = 0; offset < length; )
      offset += writeSync(spare.fd, bytes, offset, length - offset, offset);
    // Shrinking to a non-zero size does not trigger ext4's flush-on-close that truncating to zero does.
    if (length < spare.length) ftruncateSync(spare.fd, length);
    spare.length = length;
    if (fsync) fsyncSync(spare.fd);
    try {
      linkSync(spare.path, temporaryPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // An earlier rename failed and left the name behind.
      settleTemporary();
      linkSync(spare.path, temporaryPath);
    }
    renameSync(temporaryPath, checkpointPath);
    nextSpare = 1 - nextSpare;
  };

  const writeFresh = (bytes: Uint8Array) => {
    if (fsync) {
      const fd = openSync(temporaryPath, 'w');
      try {
        writeSync(fd, bytes);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } else writeFileSync(temporaryPath, bytes);
    // Unlink, then rename: ext4 flushes data on a rename that *replaces* a file (auto_da_alloc). Between the two
    // calls only the complete temp file exists, and readCheckpointText falls back to it.
    unlinkIfPresent(checkpointPath);
    renameSync(temporaryPath, checkpointPath);
  };

  const fsyncDirectory = () => {
    const fd = openSync(directory, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };

  return {
    write(bytes) {
      if (hardLinks) {
        try {
          writeSpare(bytes);
          if (fsync) fsyncDirectory();
          return;
        } catch (error) {
          if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
          // No hard links here (some network and FUSE file systems): a fresh temp file per checkpoint.
          hardLinks = false;
          closeSpares();
        }
      }
      writeFresh(bytes);
      if (fsync) fsyncDirectory();
    },
    close: closeSpares,
  };
}

/** The text of the current checkpoint and the file it came from. */
export interface CheckpointText {
  readonly path: string;
  readonly text: string;
}

/**
 * Reads the current checkpoint of a run directory: `checkpoint.json`, or the complete `.checkpoint.json.tmp` that a
 * crash between unlink and rename left alone. Reads again (up to 20 times) when the file changed while it was read
 * or stopped being the checkpoint (a writer in another process reusing a spare). Returns undefined when there is no
 * checkpoint.
 *
 * @param directory - The run directory.
 * @param resolve - Maps the path of `checkpoint.json` (and of the temp file) to the path to read, or to undefined
 *   when it must not be read (the file store's check that no symbolic link leads out of the run directory).
 *   Default: the path itself.
 */
export function readCheckpointText(
  directory: string,
  resolve: (path: string) => string | undefined = (path) => path,
): CheckpointText | undefined {
  let last: CheckpointText | undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    last = undefined;
    for (const name of [CHECKPOINT_FILE, CHECKPOINT_TEMP_FILE]) {
      const path = join(directory, name);
      const readable = resolve(path);
      const read = readable === undefined ? 'missing' : readIfStable(readable);
      if (read === 'missing') continue;
      if (read.stable) return { path, text: read.text };
      last = { path, text: read.text };
      break;
    }
    if (last === undefined) return undefined;
  }
  return last;
}

/**
 * Reads a whole file and tells whether it is a consistent snapshot: its change time and size did not move during
 * the read, and the name still points at the file that was read (a spare is only rewritten while unnamed).
 */
function readIfStable(path: string): { text: string; stable: boolean } | 'missing' {
  let fd: number;
  try {
    // Without blocking: a FIFO under the checkpoint's name must not hang the reader (it reads as missing).
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const before = fstatSync(fd, { bigint: true });
    if (!before.isFile()) return 'missing';
    const text = readFileSync(fd, 'utf8');
    const named = statSync(path, { bigint: true, throwIfNoEntry: false });
    const after = fstatSync(fd, { bigint: true });
    const stable =
      named !== undefined &&
      named.ino === after.ino &&
      named.dev === after.dev &&
      before.ctimeNs === after.ctimeNs &&
      before.size === after.size;
    return { text, stable };
  } finally {
    closeSync(fd);
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
