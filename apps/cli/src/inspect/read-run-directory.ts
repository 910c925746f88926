import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  type Checkpoint,
  CheckpointCorruptError,
  createFileRunStore,
  type JsonValue,
  type PipelineEvent,
  type RunManifest,
  type RunStore,
  readRun,
} from '@attractor/engine';
import { CliError } from '../errors/cli-error.js';
import { describeFsError } from '../errors/describe-fs-error.js';

/** The files of a run directory the CLI reads (spec §5.6, docs/architecture.md "Run directory"). */
export interface RunDirectory {
  /** Absolute path. */
  readonly logsRoot: string;
  readonly manifest: RunManifest;
  readonly checkpoint?: Checkpoint;
  /** Every event of `events.jsonl` in order; a torn last line (crash mid-write) is skipped. */
  readonly events: readonly PipelineEvent[];
  /** The run's result (`output.json`, README "Typed data"), when the graph declares `outputs` and the run succeeded. */
  readonly output?: Readonly<Record<string, JsonValue>>;
  /**
   * For a fork (`manifest.forked_from`): the checkpoint it started from, the first of its history, seeded from the
   * source run's checkpoint after the fork's stage. Its `completed_nodes` are the stages the fork inherited.
   */
  readonly forkStart?: Checkpoint;
  /**
   * Where the run stands by its run index when a live process executes it (its lock's holder is alive): `running`, or
   * `waiting` for an answer at a human gate. Absent when none does or nothing says.
   */
  readonly liveState?: 'running' | 'waiting';
  /**
   * For a run of the shared store that the run queue dead-lettered (its job failed more times than the workers' retry
   * limit allows, outside its pipeline): the queue's reason. Absent otherwise, or when no queue was read.
   */
  readonly deadLetter?: { readonly reason: string };
}

/**
 * The checkpoint a forked run started from (the first entry of its history, the one with `origin`), or undefined
 * for a run that is no fork or whose history lacks it.
 * @param store the run's store
 * @param manifest the run's manifest
 */
export async function readForkStart(
  store: Pick<RunStore, 'readCheckpointHistory'>,
  manifest: RunManifest,
): Promise<Checkpoint | undefined> {
  if (manifest.forked_from === undefined) return undefined;
  const first = (await store.readCheckpointHistory())[0];
  return first?.origin === undefined ? undefined : first;
}

/**
 * Reads `manifest.json`, `checkpoint.json` (validated) and `events.jsonl` of a run directory, through the engine's
 * `readRun` and the file store.
 *
 * @throws {CliError} `CLI_FILE_NOT_FOUND` when the directory does not exist or has no `manifest.json`;
 *   `CLI_INVALID_INPUT` when a file is not valid JSON or the checkpoint does not match the schema.
 */
export async function readRunDirectory(
  path: string,
  options: { readonly cwd: string },
): Promise<RunDirectory> {
  const logsRoot = resolve(options.cwd, path);
  const kind = await stat(logsRoot).then(
    (info) => (info.isDirectory() ? 'directory' : 'file'),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return 'missing';
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        message: `Cannot read run directory ${path}: ${describeFsError(error)}. Check its permissions.`,
        cause: error,
      });
    },
  );
  if (kind !== 'directory') {
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `${kind === 'file' ? `${path} is a file, not a run directory` : `Run directory ${path} not found`}. Runs are kept under ./.attractor/runs/ by default; pass one of those directories${/\.(dot|gv)$/i.test(path) ? ` (a DOT file is started with \`attractor run ${path}\`)` : ''}.`,
    });
  }
  // The one reader of a run (readRun), through the file store.
  const store = createFileRunStore({ logsRoot, createDirectory: false });
  try {
    const record = await readThrough(path, () => readRun(store, { stages: false }));
    if (record.manifest === undefined) {
      throw new CliError({
        code: 'CLI_FILE_NOT_FOUND',
        message: `${path} is not a run directory: it has no manifest.json. Pass a directory that \`attractor run\` created (printed at its start).`,
      });
    }
    // A torn trailing line after a crash is skipped; every complete line before it is kept.
    const events = await readThrough(path, () => store.readEvents());
    const manifest = record.manifest;
    const forkStart = await readThrough(path, () => readForkStart(store, manifest));
    const output = await readThrough(path, async () => store.readOutput?.());
    return {
      logsRoot,
      manifest,
      ...(record.checkpoint === undefined ? {} : { checkpoint: record.checkpoint }),
      events,
      ...(output === undefined ? {} : { output }),
      ...(forkStart === undefined ? {} : { forkStart }),
    };
  } finally {
    await store.close();
  }
}

/** Runs a read of the run directory, turning a damaged or unreadable file into a one-line {@link CliError}. */
async function readThrough<TValue>(path: string, read: () => Promise<TValue>): Promise<TValue> {
  try {
    return await read();
  } catch (error) {
    if (CheckpointCorruptError.isInstance(error)) {
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        message: `The run directory ${path} is damaged: ${error.message}`,
        cause: error,
      });
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('E')) {
      // An unreadable run directory is a user-facing fault: one line naming the file and the cause, no stack.
      const file = (error as NodeJS.ErrnoException).path ?? path;
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        message: `Cannot read ${file}: ${describeFsError(error)}. Check the run directory's permissions (ls -l ${dirname(file)}).`,
        cause: error,
      });
    }
    throw error;
  }
}
