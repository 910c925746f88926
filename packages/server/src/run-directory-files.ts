/**
 * The files the server keeps in and reads from run directories (docs/architecture.md "Run directory"): it
 * creates a unique directory per run, stores the submitted DOT source and the run's request beside the
 * engine's files so the run can be resumed after a restart, and lists past runs. Stage files are read through
 * the run store (stage-directory-files.ts).
 */
import {
  accessSync,
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, sep } from 'node:path';
import { readTextFileSync } from '@attractor/engine';
import { z } from 'zod';
import { ApiError } from './errors/api-error.js';

/** The DOT source of a server run, saved in its run directory. */
export const RUN_SOURCE_FILE = 'pipeline.dot';
/** What the server needs to resume a run after a restart, saved in its run directory. */
export const RUN_REQUEST_FILE = 'server-run.json';
/** The stage files the API serves (spec §5.6), and nothing else. */
export const STAGE_FILES = ['prompt.md', 'response.md', 'status.json', 'stdout.txt', 'stderr.txt'] as const;
/** One of {@link STAGE_FILES}. */
export type StageFileName = (typeof STAGE_FILES)[number];

const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The JSON of {@link RUN_REQUEST_FILE}: how the run was started. */
export const runRequestSchema = z.object({
  version: z.literal(1),
  /** `text` when the DOT came in the request body, else the path under the pipelines directory. */
  origin: z.union([
    z.object({ kind: z.literal('text') }),
    z.object({ kind: z.literal('file'), path: z.string() }),
  ]),
  /** The file name used in diagnostics. */
  filename: z.string(),
  simulate: z.boolean(),
  model: z.string().optional(),
  provider: z.string().optional(),
  maxSteps: z.number().int().positive().optional(),
  /**
   * For a fork of a run of `attractor run`: the absolute path of that run's DOT file, next to which the run's relative
   * references (`graph_ref`, `stack.child_dotfile`) resolve, as they did in the run it came from.
   */
  sourcePath: z.string().optional(),
});

/** How a server run was started (the content of {@link RUN_REQUEST_FILE}). */
export type RunRequestRecord = z.infer<typeof runRequestSchema>;

/**
 * Creates a new, empty run directory `<runsDir>/<name>`, or `<name>-2`, `<name>-3`, ... when taken (two runs of one
 * graph started in the same second). Returns its absolute path.
 */
export function createUniqueRunDirectory(runsDir: string, name: string): string {
  mkdirSync(runsDir, { recursive: true });
  for (let suffix = 1; ; suffix++) {
    const path = join(runsDir, suffix === 1 ? name : `${name}-${suffix}`);
    try {
      mkdirSync(path);
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** Writes the DOT source and the request record of a new run. */
export function writeRunRequest(runDir: string, source: string, record: RunRequestRecord): void {
  writeFileSync(join(runDir, RUN_SOURCE_FILE), source);
  writeFileSync(join(runDir, RUN_REQUEST_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * Whether run directory `runDir` holds the records of a run started by a server ({@link RUN_SOURCE_FILE} or
 * {@link RUN_REQUEST_FILE}); false for a run of `attractor run`.
 */
export function hasRunRequest(runDir: string): boolean {
  return existsSync(join(runDir, RUN_SOURCE_FILE)) || existsSync(join(runDir, RUN_REQUEST_FILE));
}

/**
 * Reads the DOT source and request record of a run started by a server.
 * @throws {ApiError} `RESUME_REFUSED` (409) when the run was not started by a server (no saved source).
 */
export function readRunRequest(runDir: string): { source: string; record: RunRequestRecord } {
  const sourcePath = join(runDir, RUN_SOURCE_FILE);
  const recordPath = join(runDir, RUN_REQUEST_FILE);
  if (!existsSync(sourcePath) || !existsSync(recordPath)) {
    throw new ApiError({
      status: 409,
      code: 'RESUME_REFUSED',
      message: `Run "${basename(runDir)}" was not started by this server (no ${RUN_SOURCE_FILE} / ${RUN_REQUEST_FILE}); resume it with \`attractor resume\` instead.`,
    });
  }
  let recorded: unknown;
  try {
    recorded = JSON.parse(readTextFileSync(recordPath, { what: RUN_REQUEST_FILE }));
  } catch (error) {
    throw new ApiError({
      status: 409,
      code: 'RESUME_REFUSED',
      message: `Run "${basename(runDir)}" has an unreadable ${RUN_REQUEST_FILE}: ${(error as Error).message}.`,
    });
  }
  const parsed = runRequestSchema.safeParse(recorded);
  if (!parsed.success) {
    throw new ApiError({
      status: 409,
      code: 'RESUME_REFUSED',
      message: `Run "${basename(runDir)}" has an unreadable ${RUN_REQUEST_FILE}: ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
    });
  }
  return { source: readTextFileSync(sourcePath, { what: RUN_SOURCE_FILE }), record: parsed.data };
}

/**
 * The absolute directory of run `runId` under `runsDir`.
 * @throws {ApiError} `RUN_NOT_FOUND` (404) when the id is malformed (path separators, `..`) or no such run
 *   directory with a `manifest.json` exists.
 */
export function resolveRunDirectory(runsDir: string, runId: string): string {
  const path = join(runsDir, runId);
  const notFound = () =>
    new ApiError({
      status: 404,
      code: 'RUN_NOT_FOUND',
      message: `No run "${runId}" in the runs directory. GET /pipelines lists the runs.`,
    });
  if (!RUN_ID_PATTERN.test(runId) || runId.includes('..') || !existsSync(join(path, 'manifest.json'))) {
    throw notFound();
  }
  // Never serve through a symbolic link that leads out of the runs directory: not the run directory itself, nor
  // the files read from it without a name check of their own (issue 20 §7).
  const root = realpathSync(runsDir);
  const real = realpathSync(path);
  if (!real.startsWith(root + sep)) throw notFound();
  for (const name of RUN_FILES) {
    let file: string;
    try {
      file = realpathSync(join(real, name));
    } catch {
      continue;
    }
    if (!file.startsWith(real + sep)) {
      throw new ApiError({
        status: 404,
        code: 'NOT_FOUND',
        message: `Run "${runId}" has a ${name} that leads outside its run directory; it is not served.`,
      });
    }
  }
  return path;
}

/** The files of a run directory read by name (checkpoint, manifest, event log, the server's own records). */
const RUN_FILES = [
  'manifest.json',
  'checkpoint.json',
  'events.jsonl',
  RUN_SOURCE_FILE,
  RUN_REQUEST_FILE,
] as const;

/** Throws unless runs can be created under `runsDir` (made when missing): the local server's readiness probe. */
export function checkRunsDirectory(runsDir: string): void {
  mkdirSync(runsDir, { recursive: true });
  accessSync(runsDir, constants.W_OK);
}

/**
 * The names of the run directories under `runsDir` (those holding a `manifest.json`). A symbolic link is listed
 * only when it leads to a directory inside `runsDir` (issue 34 §13); the run's own files are read through the
 * engine's file store, which reads nothing through a link leading out of the run directory.
 */
export function listRunDirectories(runsDir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(runsDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let root: string | undefined;
  const insideRoot = (name: string): boolean => {
    try {
      root ??= realpathSync(runsDir);
      return realpathSync(join(runsDir, name)).startsWith(root + sep);
    } catch {
      return false;
    }
  };
  return entries
    .filter(
      (entry) =>
        RUN_ID_PATTERN.test(entry.name) &&
        (entry.isDirectory() || (entry.isSymbolicLink() && insideRoot(entry.name))) &&
        existsSync(join(runsDir, entry.name, 'manifest.json')),
    )
    .map((entry) => entry.name);
}

/** The text of a DOT file recorded in a manifest (runs started by the CLI), or undefined when it cannot be read. */
export function readSourceFile(path: string): string | undefined {
  try {
    return readTextFileSync(path, { what: 'Source file' });
  } catch {
    return undefined;
  }
}

/** Deletes a run directory this server just created, when the run could not be started after all. */
export function removeRunDirectory(runDir: string): void {
  rmSync(runDir, { recursive: true, force: true });
}

/** How many bytes at the end of `events.jsonl` {@link readFinalEvent} reads. */
const EVENTS_TAIL_BYTES = 16 * 1024;

/**
 * The run's final `pipeline.completed` / `pipeline.failed` / `pipeline.cancelled` event, when the last complete line
 * of `events.jsonl` is one (read from the end of the file, whatever its length). Undefined otherwise: the run is
 * still going, or its process died.
 */
export function readFinalEvent(runDir: string): { type: string; reason?: string } | undefined {
  let fd: number;
  try {
    // Never through a symbolic link (it could lead out of the runs directory), never blocking on a FIFO.
    fd = openSync(
      join(runDir, 'events.jsonl'),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    const size = stats.size;
    const length = Math.min(size, EVENTS_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const last = lines.at(-1);
    if (last === undefined) return undefined;
    const event = JSON.parse(last) as { type?: unknown; reason?: unknown; error?: unknown };
    if (
      event.type !== 'pipeline.completed' &&
      event.type !== 'pipeline.failed' &&
      event.type !== 'pipeline.cancelled'
    )
      return undefined;
    const reason =
      typeof event.reason === 'string'
        ? event.reason
        : typeof event.error === 'string'
          ? event.error
          : undefined;
    return { type: event.type, ...(reason === undefined ? {} : { reason }) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
