/**
 * The run directory on disk (spec §5.6, DESIGN.md "Run directory", "Checkpoint"): `manifest.json`,
 * `checkpoint.json` (atomic: a complete temp file `.checkpoint.json.tmp` is renamed into place, optional fsync; see
 * checkpoint-file.ts),
 * `events.jsonl` (append-only),
 * `{stage}/status.json` and `manifest.json` (atomic: temp file + rename), and `{stage}/visits/<n>/` for earlier visits.
 *
 * Writes are synchronous on purpose: they are small, and a synchronous write-and-rename is several times cheaper
 * than the promise-based one (see the `bench` script).
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { createCheckpointFile, readCheckpointText } from './checkpoint-file.js';
import { CheckpointCorruptError } from './errors/checkpoint-corrupt-error.js';
import type { PipelineEvent } from './pipeline-event.js';
import {
  CHECKPOINT_VERSION,
  type Checkpoint,
  type RunManifest,
  type RunStore,
  type StageStatusFile,
} from './run-store.js';
import { createCheckpointSerializer } from './serialize-checkpoint.js';
import { writeFileAtomicSync } from './write-file-atomic-sync.js';

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
}

/**
 * A {@link RunStore} writing the spec §5.6 run directory.
 *
 * @example
 * const store = createFileRunStore({ logsRoot: '.attractor/runs/2026-01-01T00-00-00Z-demo', fsync: true });
 */
export function createFileRunStore(options: FileRunStoreOptions): RunStore {
  const root = options.logsRoot;
  const fsync = options.fsync ?? false;
  mkdirSync(root, { recursive: true });
  const checkpointFile = createCheckpointFile({ directory: root, fsync });
  const serializeCheckpoint = createCheckpointSerializer();
  const eventsPath = join(root, 'events.jsonl');
  let eventsFd: number | undefined;

  const readJson = (path: string): unknown => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new CheckpointCorruptError({ path, reason: 'the file is not valid JSON', cause: error });
    }
  };

  return {
    logsRoot: root,
    async readManifest() {
      return readJson(join(root, 'manifest.json')) as RunManifest | undefined;
    },
    writeManifest(manifest) {
      writeFileAtomicSync(join(root, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { fsync });
    },
    async readCheckpoint() {
      const read = readCheckpointText(root);
      if (read === undefined) return undefined;
      let data: Checkpoint;
      try {
        data = JSON.parse(read.text) as Checkpoint;
      } catch (error) {
        throw new CheckpointCorruptError({
          path: read.path,
          reason: 'the file is not valid JSON',
          cause: error,
        });
      }
      if (typeof data !== 'object' || data === null || data.version !== CHECKPOINT_VERSION) {
        throw new CheckpointCorruptError({
          path: read.path,
          reason: `unsupported checkpoint version ${JSON.stringify((data as { version?: unknown } | null)?.version)} (expected ${CHECKPOINT_VERSION})`,
        });
      }
      return data;
    },
    writeCheckpoint(checkpoint) {
      checkpointFile.write(serializeCheckpoint(checkpoint));
    },
    appendEvents(events) {
      if (events.length === 0) return;
      if (eventsFd === undefined) {
        eventsFd = openSync(eventsPath, 'a+');
        // A crash mid-append can leave a torn last line; start on a fresh line so the next event stays readable.
        const size = fstatSync(eventsFd).size;
        if (size > 0) {
          const last = Buffer.alloc(1);
          readSync(eventsFd, last, 0, 1, size - 1);
          if (last[0] !== 0x0a) writeSync(eventsFd, '\n');
        }
      }
      let text = '';
      for (const event of events) text += `${JSON.stringify(event)}\n`;
      writeSync(eventsFd, text);
    },
    async readEvents() {
      let text: string;
      try {
        text = readFileSync(eventsPath, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const events: PipelineEvent[] = [];
      for (const line of text.split('\n')) {
        if (line === '') continue;
        try {
          events.push(JSON.parse(line) as PipelineEvent);
        } catch {
          // A torn last line from a crash mid-append: the checkpoint never refers to it.
        }
      }
      return events;
    },
    prepareStageDir(stagePath, visit) {
      const directory = join(root, stagePath);
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
          return directory;
        }
      }
      mkdirSync(directory, { recursive: true });
      return directory;
    },
    writeStageStatus(stagePath, status) {
      // prepareStageDir created the directory.
      // Atomic: a full disk leaves the previous file (or none), never an empty or torn one.
      writeFileAtomicSync(join(root, stagePath, 'status.json'), `${JSON.stringify(status, null, 2)}\n`, {
        fsync,
      });
    },
    async readStageStatus(stagePath) {
      const path = join(root, stagePath, 'status.json');
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      return JSON.parse(text) as StageStatusFile;
    },
    close() {
      if (eventsFd !== undefined) closeSync(eventsFd);
      eventsFd = undefined;
      checkpointFile.close();
    },
  };
}

/** The directory inside a stage directory that holds earlier visits (DESIGN.md "Evidence is never overwritten"). */
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
