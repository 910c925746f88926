/**
 * The run directory on disk (spec §5.6, docs/architecture.md "Run directory", "Checkpoint"): `manifest.json`,
 * `checkpoint.json` (atomic: a complete temp file `.checkpoint.json.tmp` is renamed into place, optional fsync; see
 * checkpoint-file.ts),
 * `checkpoints.jsonl` (every checkpoint, append-only: the history fork starts from; each line stores the checkpoint's
 * sliding windows as a delta against the line before, see serialize-checkpoint.ts),
 * `events.jsonl` (append-only audit trail),
 * `manifest.json` (atomic: temp file + rename), `{stage}/status.json` (written in place when it is new — the stage's
 * directory was just prepared — and replaced atomically otherwise), `{stage}/visits/<n>/` for earlier visits,
 * and while a run executes `run.lock/` + `run.lock.json` (file-run-lock.ts).
 *
 * Writes are synchronous on purpose: they are small, and a synchronous write-and-rename is several times cheaper
 * than the promise-based one (see the `bench` script).
 */
import {
  appendFileSync,
  closeSync,
  constants,
  createWriteStream,
  type Dirent,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createCheckpointFile, readCheckpointText } from './checkpoint-file.js';
import { parseCheckpoint } from './checkpoint-schema.js';
import { CheckpointCorruptError } from './errors/checkpoint-corrupt-error.js';
import { acquireFileRunLock, readFileRunLock } from './file-run-lock.js';
import type { JsonValue } from './json-value.js';
import { compareNames, isTemporary, listDirectoryFiles } from './list-directory-files.js';
import type { PipelineEvent } from './pipeline-event.js';
import type { BlobData, Checkpoint, RunManifest, RunStore, StageStatusFile } from './run-store.js';
import { createCheckpointSerializer, expandHistoryLine } from './serialize-checkpoint.js';
import { checkArtifactId, checkRelativeName } from './store-names.js';
import { writeFileAtomicSync, writeNewFileSync } from './write-file-atomic-sync.js';

/** Options of {@link createFileRunStore}. */
export interface FileRunStoreOptions {
  /** The run directory; created if missing. */
  readonly logsRoot: string;
  /**
   * fsync `checkpoint.json` (and its directory) before the rename, so a power loss cannot lose the last checkpoint.
   * Costs roughly 0.3 ms per node on an SSD (see the README). Default: false (a process crash is still safe: the
   * rename is atomic).
   */
  readonly fsync?: boolean;
  /**
   * Age of an unrefreshed run lock after which another runner takes it over, in milliseconds (the holder refreshes
   * it every 2 s). A lock whose holder ran on this host and is gone is taken over at once. Default: 30,000.
   */
  readonly staleLockMs?: number;
  /**
   * Create the run directory now (true) or on the first write (false, what a catalog's `open` does, so that reading
   * a run that does not exist leaves nothing behind). Default: true.
   */
  readonly createDirectory?: boolean;
}

/**
 * A {@link RunStore} writing the spec §5.6 run directory: stage files live in `{logsRoot}/{stagePath}/{name}`,
 * artifacts in `{logsRoot}/artifacts/{id}.json`, child runs in `{logsRoot}/{relativePath}/`. Reads never leave the
 * run directory: a stage file, stage directory, artifact, `manifest.json`, `checkpoint.json`, `events.jsonl` or
 * `checkpoints.jsonl` that is a symbolic link leading out of it reads as missing, a child store (`child()`) whose
 * directory leads out of it reads as empty, and anything but a regular file reads as missing (a FIFO named
 * `stdout.txt` does not block the reader). `logsRoot` itself may be a link: the caller chose it.
 *
 * @example
 * const store = createFileRunStore({ logsRoot: '.attractor/runs/2026-01-01T00-00-00Z-demo', fsync: true });
 */
export function createFileRunStore(options: FileRunStoreOptions): RunStore {
  return createStore(options, undefined);
}

/**
 * {@link createFileRunStore}, for a child run's store too: `container` is the run directory of the top run a child
 * store lives in (undefined for a top store). A child store whose directory leads out of it through a symbolic link
 * (a stage directory that is a link) reads as empty.
 */
function createStore(options: FileRunStoreOptions, container: string | undefined): RunStore {
  const root = options.logsRoot;
  const fsync = options.fsync ?? false;
  let rootCreated = options.createDirectory !== false;
  if (rootCreated) mkdirSync(root, { recursive: true });
  const ensureRoot = () => {
    if (rootCreated) return;
    mkdirSync(root, { recursive: true });
    rootCreated = true;
  };
  const checkpointFile = createCheckpointFile({ directory: root, fsync });
  const serializer = createCheckpointSerializer();
  const eventsPath = join(root, 'events.jsonl');
  const historyPath = join(root, CHECKPOINT_HISTORY_FILE);
  let events: AppendLog | undefined;
  let history: AppendLog | undefined;
  const children = new Map<string, RunStore>();
  /** The stage `prepareStage` created last (its directory exists). */
  let lastPrepared: string | undefined;
  /** The directory of the stage asked for last, and its path (each node asks three times in a row). */
  let lastStage = { stagePath: '', directory: '' };
  const stageDirectory = (stagePath: string) => {
    if (stagePath !== lastStage.stagePath)
      lastStage = { stagePath, directory: join(root, checkRelativeName('stage path', stagePath)) };
    return lastStage.directory;
  };
  const stageFilePath = (stagePath: string, name: string) =>
    join(stageDirectory(stagePath), checkRelativeName('stage file name', name));
  const artifactPath = (id: string) =>
    join(root, ARTIFACTS_DIRECTORY, `${checkArtifactId(id)}${ARTIFACT_SUFFIX}`);
  /** The run directory's real path, once it exists. */
  let realRoot: string | undefined;
  /** Whether the directory of a child store leads out of its top run's directory (then nothing is read from it). */
  let rootOutside = false;
  /**
   * `path` (its real path) when it exists and does not lead out of the run directory through a symbolic link;
   * undefined otherwise. Names cannot hold `..`, so a link is the only way out (a run directory served by the server
   * holds what its tools and agents wrote). The run's own files (manifest, checkpoint, event log, history) and a
   * child store's directory are held to the same rule (issue 34 §13).
   */
  const inside = (path: string): string | undefined => {
    try {
      if (realRoot === undefined) {
        const real = realpathSync.native(root);
        if (container !== undefined) rootOutside = !real.startsWith(realpathSync.native(container) + sep);
        realRoot = real;
      }
      if (rootOutside) return undefined;
      const real = realpathSync.native(path);
      return real.startsWith(realRoot + sep) ? real : undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return undefined;
      throw error;
    }
  };

  const readJson = (path: string | undefined): unknown => {
    const text = readBytes(path)?.toString('utf8');
    if (path === undefined || text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new CheckpointCorruptError({ path, reason: 'the file is not valid JSON', cause: error });
    }
  };

  return {
    logsRoot: root,
    async readManifest() {
      return readJson(inside(join(root, 'manifest.json'))) as RunManifest | undefined;
    },
    writeManifest(manifest) {
      ensureRoot();
      writeFileAtomicSync(join(root, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { fsync });
    },
    writeOutput(output) {
      ensureRoot();
      writeFileAtomicSync(join(root, OUTPUT_FILE), `${JSON.stringify(output, null, 2)}\n`, { fsync });
    },
    async readOutput() {
      return readJson(join(root, OUTPUT_FILE)) as Record<string, JsonValue> | undefined;
    },
    async readCheckpoint() {
      const read = readCheckpointText(root, inside);
      if (read === undefined) return undefined;
      let data: unknown;
      try {
        data = JSON.parse(read.text);
      } catch (error) {
        throw new CheckpointCorruptError({
          path: read.path,
          reason: 'the file is not valid JSON',
          cause: error,
        });
      }
      return parseCheckpoint(data, read.path);
    },
    writeCheckpoint(checkpoint) {
      const { text, historyLine } = serializer.serialize(checkpoint);
      // History first: a crash between the two writes leaves checkpoint.json one entry behind, never ahead.
      if (history === undefined) {
        ensureRoot();
        history = openAppendLog(historyPath);
      }
      // Both encoded into one reused buffer, the checkpoint then the history line: a fresh ~4 KB string and buffer
      // per node cost more than the write itself (page faults; measured ~100 us per node on the build machine).
      // At most 3 UTF-8 bytes per UTF-16 unit: no need to measure the exact length first.
      const encoded = scratchBuffer(3 * (text.length + historyLine.length) + 1);
      const length = encoded.write(text, 0, 'utf8');
      const end = length + encoded.write(historyLine, length, 'utf8');
      encoded[end] = 0x0a;
      try {
        appendWhole(history, encoded.subarray(length, end + 1));
      } catch (error) {
        // The line was cut back off (disk full): the next line is written whole, against no earlier line.
        serializer.reset();
        closeSync(history.fd);
        history = undefined;
        throw error;
      }
      checkpointFile.write(encoded.subarray(0, length));
    },
    async readCheckpointHistory() {
      const checkpoints: Checkpoint[] = [];
      let previous: Checkpoint | undefined;
      for (const [index, line] of readLines(inside(historyPath)).entries()) {
        const where = `${historyPath} line ${index + 1}`;
        let data: unknown;
        try {
          data = JSON.parse(line);
        } catch {
          // Torn by a crash mid-append (a resume then appends after it): that checkpoint was never published.
          previous = undefined;
          continue;
        }
        previous = parseCheckpoint(expandHistoryLine(data, previous, where), where);
        checkpoints.push(previous);
      }
      return checkpoints;
    },
    async readLastEventSeq() {
      return lastEventSeq(eventsPath);
    },
    appendEvents(newEvents) {
      if (newEvents.length === 0) return;
      if (events === undefined) {
        ensureRoot();
        events = openAppendLog(eventsPath);
      }
      let text = '';
      for (const event of newEvents) text += `${JSON.stringify(event)}\n`;
      appendWhole(events, Buffer.from(text, 'utf8'));
    },
    async readEvents(readOptions) {
      const afterSeq = readOptions?.afterSeq ?? 0;
      const events: PipelineEvent[] = [];
      for (const line of readLines(inside(eventsPath))) {
        let event: PipelineEvent;
        try {
          event = JSON.parse(line) as PipelineEvent;
        } catch {
          // A torn last line from a crash mid-append: the checkpoint never refers to it.
          continue;
        }
        if (event.seq > afterSeq) events.push(event);
      }
      return events;
    },
    prepareStage(stagePath, visit) {
      const directory = stageDirectory(stagePath);
      lastPrepared = stagePath;
      if (visit > 1) {
        let entries: string[] | undefined;
        try {
          entries = readdirSync(directory);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        if (entries !== undefined) {
          const earlier = entries.filter((entry) => entry !== VISITS_DIRECTORY);
          if (earlier.length > 0) {
            const archive = createArchiveDirectory(join(directory, VISITS_DIRECTORY), visit - 1);
            for (const entry of earlier) renameSync(join(directory, entry), join(archive, entry));
          }
          return;
        }
      }
      mkdirSync(directory, { recursive: true });
    },
    async writeStageFile(stagePath, name, data) {
      await writeFile(stageFilePath(stagePath, name), data, fsync);
    },
    async appendStageFile(stagePath, name, data) {
      const path = stageFilePath(stagePath, name);
      try {
        appendFileSync(path, data);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        mkdirSync(dirname(path), { recursive: true });
        appendFileSync(path, data);
      }
    },
    async removeStageFile(stagePath, name) {
      rmSync(stageFilePath(stagePath, name), { force: true });
    },
    async readStageFile(stagePath, name) {
      return readBytes(inside(stageFilePath(stagePath, name)));
    },
    async openStageFile(stagePath, name) {
      return openStream(inside(stageFilePath(stagePath, name)));
    },
    async listStageFiles(stagePath) {
      const directory = inside(stageDirectory(stagePath));
      return directory === undefined ? [] : listDirectoryFiles(directory);
    },
    async listStages() {
      const stages: string[] = [];
      collectStages(root, '', stages);
      return stages.sort(compareNames);
    },
    writeStageStatus(stagePath, status) {
      const path = `${stageDirectory(stagePath)}${sep}status.json`;
      const text = `${JSON.stringify(status, null, 2)}\n`;
      // A full disk leaves the previous file (or none), never an empty or torn one. A stage's first status (the
      // common case: its directory was just prepared) is written in place, a later one replaces it atomically.
      const write = () => {
        if (!writeNewFileSync(path, text, { fsync })) writeFileAtomicSync(path, text, { fsync });
      };
      try {
        write();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        // Not prepared (a status written from outside a stage run).
        mkdirSync(dirname(path), { recursive: true });
        write();
      }
    },
    async readStageStatus(stagePath) {
      const path = join(stageDirectory(stagePath), 'status.json');
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      try {
        return JSON.parse(text) as StageStatusFile;
      } catch {
        // Cut short by a killed process (written in place, see writeStageStatus): the stage never completed.
        return undefined;
      }
    },
    async writeArtifact(id, data) {
      await writeFile(artifactPath(id), data, fsync);
    },
    async readArtifact(id) {
      return readBytes(inside(artifactPath(id)));
    },
    async removeArtifact(id) {
      rmSync(artifactPath(id), { force: true });
    },
    async listArtifacts() {
      const directory = inside(join(root, ARTIFACTS_DIRECTORY));
      const files = directory === undefined ? [] : listDirectoryFiles(directory);
      return files
        .filter((file) => !file.name.includes('/') && file.name.endsWith(ARTIFACT_SUFFIX))
        .map((file) => ({ ...file, name: file.name.slice(0, -ARTIFACT_SUFFIX.length) }));
    },
    child(relativePath) {
      const key = checkRelativeName('child path', relativePath);
      let child = children.get(key);
      if (child === undefined) {
        child = createStore(
          { ...options, logsRoot: join(root, key), createDirectory: false },
          container ?? root,
        );
        children.set(key, child);
      }
      return child;
    },
    localStageDirectory(stagePath) {
      const path = stageDirectory(stagePath);
      // The engine asks right after prepareStage created it: skip the second mkdir (one syscall per node).
      if (stagePath !== lastPrepared) mkdirSync(path, { recursive: true });
      return { path, sync: noSync };
    },
    acquireLock(lockOptions) {
      ensureRoot();
      return acquireFileRunLock({
        directory: root,
        since: lockOptions.since,
        ...(options.staleLockMs === undefined ? {} : { staleMs: options.staleLockMs }),
      });
    },
    async readLock() {
      return readFileRunLock(root);
    },
    close() {
      if (events !== undefined) closeSync(events.fd);
      if (history !== undefined) closeSync(history.fd);
      events = undefined;
      history = undefined;
      checkpointFile.close();
    },
  };
}

/**
 * The buffer checkpoints are encoded into, shared by every file store of the process: the encoding and both writes
 * are synchronous, so no two stores use it at once, and a run that waits (at a human gate) holds none of its own
 * (issue 35: 16 KB of every waiting run's ~70). Created on first use; a checkpoint over 1 MB gets a buffer of its own.
 */
let scratch: Buffer | undefined;

/** {@link scratch}, at least `bytes` long. */
function scratchBuffer(bytes: number): Buffer {
  if (bytes > MAX_SCRATCH_BYTES) return Buffer.allocUnsafeSlow(bytes);
  if (scratch === undefined || scratch.length < bytes)
    scratch = Buffer.allocUnsafeSlow(Math.max(bytes, 2 * (scratch?.length ?? 8 * 1024)));
  return scratch;
}

/** Largest shared encoding buffer kept, in bytes. */
const MAX_SCRATCH_BYTES = 1024 * 1024;

/** The `sync` of the file store's local stage directories: the directory is the stage, nothing to copy. */
function noSync(): void {}

/** The directory of file-backed artifacts in a run directory (spec §5.6). */
/** The run's result (README "Typed data"), in the run directory. */
const OUTPUT_FILE = 'output.json';
const ARTIFACTS_DIRECTORY = 'artifacts';
/** The suffix of an artifact's file: `artifacts/{id}.json`. */
const ARTIFACT_SUFFIX = '.json';
/** Entries of the run directory that are not stages. */
const NOT_STAGES = new Set([ARTIFACTS_DIRECTORY, 'run.lock', 'run.lock.gate']);

/** Writes a file atomically (temp file + rename), creating its directory; a stream is piped to the temp file. */
async function writeFile(path: string, data: BlobData, fsync: boolean): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  if (typeof data === 'string' || data instanceof Uint8Array) {
    writeFileAtomicSync(path, data, { fsync });
    return;
  }
  streamCounter += 1;
  const temp = join(dirname(path), `.${process.pid}.${streamCounter}.stream.tmp`);
  try {
    await pipeline(Readable.from(data), createWriteStream(temp, { flush: fsync }));
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
let streamCounter = 0;

/**
 * A file's bytes, or undefined when it is missing (or `path` is undefined) or not a regular file. Opened without
 * blocking and checked on the descriptor, so a FIFO or device under a stage file's name never hangs or floods the
 * reader.
 */
function readBytes(path: string | undefined): Buffer | undefined {
  if (path === undefined) return undefined;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** A regular file as a stream of chunks (the descriptor closes at the end or when iteration stops), or undefined. */
async function openStream(path: string | undefined): Promise<AsyncIterable<Uint8Array> | undefined> {
  if (path === undefined) return undefined;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    return undefined;
  }
  return handle.createReadStream();
}

/**
 * Adds the stage paths of a run directory: its top-level directories that hold files (except `artifacts/` and the
 * lock), and below each stage the branch stages `branches/{branchId}/{nodeId}` and the foreach item stages
 * `items/{n}/{nodeId}` (recursively). Other subdirectories of a stage (`visits/`, a handler's own folders, child
 * runs) are the stage's files, not stages.
 */
function collectStages(directory: string, relativePath: string, stages: string[]): void {
  const entries = readDirectory(directory);
  if (relativePath !== '') {
    if (entries.some((entry) => entry.isFile() && !isTemporary(entry.name))) stages.push(relativePath);
    for (const folder of BRANCH_FOLDERS) {
      if (!entries.some((entry) => entry.name === folder && entry.isDirectory())) continue;
      for (const branch of readDirectory(join(directory, folder))) {
        if (!branch.isDirectory()) continue;
        for (const node of readDirectory(join(directory, folder, branch.name))) {
          if (!node.isDirectory()) continue;
          collectStages(
            join(directory, folder, branch.name, node.name),
            `${relativePath}/${folder}/${branch.name}/${node.name}`,
            stages,
          );
        }
      }
    }
    return;
  }
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.') || NOT_STAGES.has(entry.name)) continue;
    collectStages(join(directory, entry.name), entry.name, stages);
  }
}

/** The entries of a directory; none when it is missing. */
function readDirectory(directory: string): Dirent[] {
  try {
    return readdirSync(directory, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

/**
 * Where branch stages live inside the stage of a `parallel` node (`{stage}/branches/{branchId}/{nodeId}`) and item
 * stages inside the stage of a `foreach` node (`{stage}/items/{n}/{nodeId}`).
 */
const BRANCH_FOLDERS = ['branches', 'items'] as const;

/** The checkpoint history file of a run directory: one checkpoint per line, oldest first. */
export const CHECKPOINT_HISTORY_FILE = 'checkpoints.jsonl';

/** An append-only JSON-lines file open for writing: its descriptor and its size in bytes, which only it changes. */
interface AppendLog {
  readonly fd: number;
  size: number;
}

/**
 * Opens an append-only JSON-lines file. A crash mid-append can leave a torn last line: it is cut off here, so the file
 * only ever holds whole lines (what was torn was never published: the checkpoint and the event log's readers skip it).
 */
function openAppendLog(path: string): AppendLog {
  const fd = openSync(path, 'a+');
  let size = fstatSync(fd).size;
  const whole = wholeLinesEnd(fd, size);
  if (whole !== size) {
    ftruncateSync(fd, whole);
    size = whole;
  }
  return { fd, size };
}

/** The length of the file's whole lines: up to its last newline (0 without one); its size when it ends with one. */
function wholeLinesEnd(fd: number, size: number): number {
  if (size === 0) return 0;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  if (last[0] === 0x0a) return size;
  const window = Buffer.allocUnsafe(64 * 1024);
  for (let end = size - 1; end > 0; ) {
    const start = Math.max(0, end - window.length);
    const read = readSync(fd, window, 0, end - start, start);
    const newline = window.subarray(0, read).lastIndexOf(0x0a);
    if (newline >= 0) return start + newline + 1;
    end = start;
  }
  return 0;
}

/**
 * Appends `bytes` (whole lines) to the log, all of them or none: when a write fails part-way (disk full), the file is
 * cut back to its size before, so no torn line stays behind, and the error is thrown.
 */
function appendWhole(log: AppendLog, bytes: Uint8Array): void {
  try {
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(log.fd, bytes, offset);
  } catch (error) {
    try {
      ftruncateSync(log.fd, log.size);
    } catch {
      // Nothing more can be done here; the next open cuts the torn line off.
    }
    throw error;
  }
  log.size += bytes.length;
}

/**
 * The non-empty lines of a JSON-lines file; none when it does not exist, is not a regular file or `path` is
 * undefined.
 */
function readLines(path: string | undefined): string[] {
  const text = readBytes(path)?.toString('utf8');
  return text === undefined ? [] : text.split('\n').filter((line) => line !== '');
}

/** The `seq` of the last complete event in `events.jsonl`, reading only the end of the file; 0 when none. */
function lastEventSeq(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    for (let window = 64 * 1024; ; window *= 4) {
      const start = Math.max(0, size - window);
      const buffer = Buffer.alloc(size - start);
      readSync(fd, buffer, 0, buffer.length, start);
      const lines = buffer.toString('utf8').split('\n');
      // The first line of a window that does not start the file may be cut.
      for (let index = lines.length - 1; index >= (start === 0 ? 0 : 1); index--) {
        try {
          const seq: unknown = (JSON.parse(lines[index]!) as { seq?: unknown }).seq;
          if (typeof seq === 'number') return seq;
        } catch {
          // A torn or empty line.
        }
      }
      if (start === 0) return 0;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The directory inside a stage directory that holds earlier visits
 * (docs/architecture.md "Evidence is never overwritten").
 */
const VISITS_DIRECTORY = 'visits';

/**
 * Creates `{visitsDirectory}/{visit}` (or `{visit}-2`, `{visit}-3`, ... when a resumed run already used the name)
 * and returns its path. One `mkdir` in the usual case; the `visits` directory itself is created on first use.
 */
function createArchiveDirectory(visitsDirectory: string, visit: number): string {
  for (let suffix = 1; ; suffix++) {
    const archive = join(visitsDirectory, suffix === 1 ? String(visit) : `${visit}-${suffix}`);
    try {
      mkdirSync(archive);
      return archive;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code !== 'ENOENT') throw error;
      mkdirSync(visitsDirectory, { recursive: true });
      mkdirSync(archive);
      return archive;
    }
  }
}

/** The version of this package, for `manifest.json`. */
export function readEngineVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
