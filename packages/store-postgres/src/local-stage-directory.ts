/**
 * A scratch directory standing in for a stage of a store that is not a file system (`RunStore.localStageDirectory`):
 * the stage's files are copied into it (earlier visits under `visits/` left out), a program works in it, and
 * `sync()` copies back what it created or changed and removes from the store what it deleted.
 */
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobData, LocalStageDirectory, StoredFileInfo } from '@attractor/engine';

/** How a scratch directory reaches the files of its stage. */
export interface StageFileAccess {
  /** The stage's files, names relative to the stage. */
  list(): Promise<StoredFileInfo[]>;
  read(name: string): Promise<Uint8Array | undefined>;
  open(name: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  write(name: string, data: BlobData): Promise<void>;
  /** Writes several files of at most `smallBytes` each at once (one round trip). */
  writeSmall(files: readonly { readonly name: string; readonly bytes: Uint8Array }[]): Promise<void>;
  /** The size up to which a file goes through `writeSmall`, in bytes. */
  readonly smallBytes: number;
  remove(name: string): Promise<void>;
}

/** A scratch directory that can also be removed (when its store closes). */
export interface ScratchStageDirectory extends LocalStageDirectory {
  remove(): Promise<void>;
}

const ARCHIVE_PREFIX = 'visits/';

/**
 * Creates a scratch directory under `scratchRoot` holding the stage's current files.
 * @param options.scratchRoot the parent directory of scratch directories (e.g. `os.tmpdir()`)
 * @param options.files access to the stage's files in the store
 */
export async function createScratchStageDirectory(options: {
  readonly scratchRoot: string;
  readonly files: StageFileAccess;
}): Promise<ScratchStageDirectory> {
  const { files } = options;
  // Synchronous file calls: a stage's files are few and small, and each promise-based call costs a trip through
  // libuv's thread pool (several times the work itself on a busy machine).
  const path = mkdtempSync(join(options.scratchRoot, 'attractor-stage-'));
  /** What the directory held after the last copy, by name: changed files are the ones that differ from it. */
  let copied = new Map<string, string>();

  for (const info of await files.list()) {
    if (info.name.startsWith(ARCHIVE_PREFIX)) continue;
    const target = join(path, ...info.name.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    if (info.sizeBytes <= files.smallBytes) {
      const bytes = await files.read(info.name);
      if (bytes === undefined) continue;
      writeFileSync(target, bytes);
    } else {
      const source = await files.open(info.name);
      if (source === undefined) continue;
      await pipeline(Readable.from(source), createWriteStream(target));
    }
    copied.set(info.name, fingerprint(statSync(target)));
  }

  return {
    path,
    async sync() {
      const now = new Map<string, string>();
      const small: { name: string; bytes: Uint8Array }[] = [];
      const large: string[] = [];
      for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const absolute = join(entry.parentPath, entry.name);
        const name = relative(path, absolute).split(sep).join('/');
        const stats = statSync(absolute);
        const print = fingerprint(stats);
        now.set(name, print);
        if (copied.get(name) === print) continue;
        if (stats.size <= files.smallBytes) small.push({ name, bytes: readFileSync(absolute) });
        else large.push(name);
      }
      // The files of a usual stage (prompt, response, status) in one write.
      await files.writeSmall(small);
      for (const name of large) await files.write(name, createReadStream(join(path, ...name.split('/'))));
      for (const name of copied.keys()) {
        if (!now.has(name)) await files.remove(name);
      }
      copied = now;
    },
    async remove() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

function fingerprint(stats: { size: number; mtimeMs: number; ino: number }): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
}
