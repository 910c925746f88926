/**
 * The stage workspace a handler gets as `runtime.stage` (docs/architecture.md "Handler contract"): the
 * current stage's files through the run store, whatever store the run uses, plus a real directory for
 * programs that need one.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidStoreNameError } from './errors/invalid-store-name-error.js';
import type { BlobData, LocalStageDirectory, RunStore, StoredFileInfo } from './run-store.js';
import { checkRelativeName } from './store-names.js';

/**
 * The files of the current stage (`prompt.md`, `response.md`, `status.json`, `stdout.txt`, ...), stored by the run's
 * {@link RunStore}: `{logsRoot}/{stagePath}/` for the file store, the database for others. Names are relative to the
 * stage and `/`-separated (`steer/0001.md`); a name with a `..` segment is refused with `InvalidStoreNameError`.
 */
export interface StageWorkspace {
  /** The stage's path in the run: the node id, or `{stage}/branches/{branchId}/{nodeId}` inside a parallel branch. */
  readonly stagePath: string;
  /** Writes (creates or replaces) a file of the stage; a stream is written as it comes. */
  writeFile(name: string, data: BlobData): Promise<void>;
  /** Appends to a file of the stage, creating it when missing (live command output). */
  appendFile(name: string, data: string | Uint8Array): Promise<void>;
  /**
   * A file's bytes, or undefined when it does not exist. Files a program wrote into {@link localDirectory} are
   * seen too.
   */
  readFile(name: string): Promise<Uint8Array | undefined>;
  /** A file as UTF-8 text, or undefined when it does not exist. */
  readText(name: string): Promise<string | undefined>;
  /** Removes a file (from the local directory too); removing a missing one does nothing. */
  removeFile(name: string): Promise<void>;
  /** The stage's files, recursively, sorted by name (earlier visits under `visits/`, branch stages under `branches/`). */
  listFiles(): Promise<StoredFileInfo[]>;
  /**
   * A real directory holding the stage's files, for a program that needs one (a tool's `ATTRACTOR_STAGE_DIR`, an
   * agent CLI): the stage's own directory with the file store; with other stores a scratch directory whose new and
   * changed files the engine copies into the store after the attempt. Files written with {@link writeFile} go to
   * the store only (with the file store that is the same directory).
   */
  localDirectory(): Promise<string>;
  /**
   * The store of a child run kept in this stage (`name` e.g. `child`): the same store `runtime.runChild({ name })`
   * runs the child in; read it to see whether an earlier attempt used the name.
   */
  child(name: string): RunStore;
}

/**
 * Creates the {@link StageWorkspace} of `stagePath` over `store`, using `local` as its real directory (the engine
 * creates it with `store.localStageDirectory(stagePath)` before the stage and syncs it after each attempt).
 * `onWriteFault` hears every error of a write the store refused (disk full, lost connection), except a refused
 * name: the engine then stops the run as a fault rather than failing the stage, whatever the handler made of it.
 */
export function createStageWorkspace(
  store: RunStore,
  stagePath: string,
  local: LocalStageDirectory,
  onWriteFault?: (error: unknown) => void,
): StageWorkspace {
  const watch = async (write: Promise<void>): Promise<void> => {
    try {
      await write;
    } catch (error) {
      if (!InvalidStoreNameError.isInstance(error)) onWriteFault?.(error);
      throw error;
    }
  };
  return {
    stagePath,
    writeFile: (name, data) =>
      watch(Promise.resolve().then(() => store.writeStageFile(stagePath, name, data))),
    appendFile: (name, data) =>
      watch(Promise.resolve().then(() => store.appendStageFile(stagePath, name, data))),
    async readFile(name) {
      await local.sync();
      return store.readStageFile(stagePath, name);
    },
    async readText(name) {
      await local.sync();
      const bytes = await store.readStageFile(stagePath, name);
      return bytes === undefined
        ? undefined
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    },
    async removeFile(name) {
      await watch(Promise.resolve().then(() => store.removeStageFile(stagePath, name)));
      rmSync(join(local.path, checkRelativeName('stage file name', name)), { force: true });
    },
    async listFiles() {
      await local.sync();
      return store.listStageFiles(stagePath);
    },
    localDirectory: async () => local.path,
    child: (name) => store.child(`${stagePath}/${checkRelativeName('child path', name)}`),
  };
}
