/**
 * The DOT source of a run the server did not start (`attractor run`, an embedder's engine run, a run the queue
 * never saw): the file its manifest names (`source_path`), served, drawn and forked only while it still holds the
 * graph the run ran.
 */
import { type RunManifest, type RunStore, readTextFileSync } from '@attractor/engine';
import { graphFingerprint } from '@attractor/engine/internal';
import { type Graph, prepareGraph } from '@attractor/graph';
import { readCheckpointSafely } from './child-run-details.js';
import { ApiError } from './errors/api-error.js';
import { readSourceFile } from './run-directory-files.js';

/** Options of {@link readRunSourceFile}. */
export interface ReadRunSourceFileOptions {
  /** The run's id, for messages. */
  readonly runId: string;
  /** The run's store (a file store on its run directory, or the shared store's run). */
  readonly store: RunStore;
}

/**
 * Reads the DOT file named by the run's `manifest.json` (`source_path`) and returns its text when it still is the
 * pipeline the run ran: by the rule the engine applies on resume, the file's graph fingerprint (`graphFingerprint`)
 * must equal the checkpoint's `graph_sha256`, else the manifest's `source_sha256`. Text as read: the caller masks
 * secrets.
 * @throws {ApiError} `RUN_NOT_FOUND` (404) when the store holds no manifest; `NOT_FOUND` (404) when the manifest
 *   names no DOT file, or the file no longer exists (moved or deleted since the run) or cannot be read;
 *   `SOURCE_CHANGED` (409) when the file was edited since the run (another fingerprint, or it no longer parses).
 *   Each message names the file.
 */
export async function readRunSourceFile(options: ReadRunSourceFileOptions): Promise<string> {
  const { runId, store } = options;
  const manifest = await store.readManifest();
  if (manifest === undefined) {
    throw new ApiError({
      status: 404,
      code: 'RUN_NOT_FOUND',
      message: `No run "${runId}": it has no manifest.json. GET /pipelines lists the runs.`,
    });
  }
  const path = manifest.source_path;
  const resend = `send the pipeline's DOT as "dot" in the fork request`;
  if (path === undefined) {
    throw new ApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: `Run "${runId}" was not started by this server and its manifest.json names no DOT file, so its DOT source is not known here; ${resend}.`,
    });
  }
  let text: string;
  try {
    text = readTextFileSync(path, { what: 'DOT file' });
  } catch (error) {
    const missing = ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');
    throw new ApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: missing
        ? `Run "${runId}" ran from the DOT file ${path}, which no longer exists (moved or deleted since the run). Put the file back there, or ${resend}.`
        : `Run "${runId}" ran from the DOT file ${path}, which cannot be read (${(error as Error).message}); ${resend}.`,
    });
  }
  await parseRunSource({
    store,
    manifest,
    path,
    text,
    run: `run "${runId}"`,
    remedy: `Restore that version of the file, or ${resend}`,
  });
  return text;
}

/**
 * The DOT a fork of a run the server did not start begins with when the fork request sends no `dot`:
 * {@link readRunSourceFile}, whose 404s (no DOT file named, moved, unreadable) become refusals of the fork.
 * @throws {ApiError} `FORK_REFUSED` (409) when the manifest names no DOT file or the file is gone or unreadable;
 *   `SOURCE_CHANGED` (409) when it was edited since the run; `RUN_NOT_FOUND` (404) when the store holds no
 *   manifest. Each message names the file and says to send the pipeline's DOT as `"dot"` in the fork request.
 */
export async function readForkSourceFile(options: ReadRunSourceFileOptions): Promise<string> {
  try {
    return await readRunSourceFile(options);
  } catch (error) {
    if (!ApiError.isInstance(error) || error.code !== 'NOT_FOUND') throw error;
    throw new ApiError({ status: 409, code: 'FORK_REFUSED', message: error.message, cause: error });
  }
}

/**
 * The graph of a child run (sub-pipeline, manager loop), from the DOT file its manifest names (`source_path`; on a
 * shared store a path the workers and the server must both see, such as a shared volume), when the file still holds
 * the graph the child ran (the rule of {@link readRunSourceFile}).
 * @param store - the child's own store.
 * @param path - where the child is under its top run, for messages.
 * @throws {ApiError} `NOT_FOUND` (404) when the manifest names no file or the file cannot be read; `SOURCE_CHANGED`
 *   (409) when it was edited since the run (another fingerprint, or it no longer parses). Each message names the file.
 */
export async function readChildRunGraph(store: RunStore, path: string): Promise<Graph> {
  const manifest = await store.readManifest();
  const source = manifest?.source_path;
  const text = source === undefined ? undefined : readSourceFile(source);
  if (text === undefined) {
    throw new ApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: `The DOT source of child run "${path}" cannot be read${source === undefined ? ': its manifest.json names no DOT file' : ` (${source}: moved or deleted since the run?)`}.`,
    });
  }
  return parseRunSource({
    store,
    manifest: manifest!,
    path: source!,
    text,
    run: `child run "${path}"`,
    remedy: 'Restore that version of the file to see the graph',
  });
}

/**
 * The graph of `text`, the DOT file at `path` a run's manifest names, when it is the graph the run ran: its
 * fingerprint (`graphFingerprint`, the rule the engine applies on resume) equals the checkpoint's `graph_sha256`,
 * else the manifest's `source_sha256`.
 * @throws {ApiError} `SOURCE_CHANGED` (409) naming the file and `run`, ending with `remedy`, when it is not.
 */
async function parseRunSource(options: {
  readonly store: RunStore;
  /** The run's manifest, already read by the caller. */
  readonly manifest: RunManifest;
  readonly path: string;
  readonly text: string;
  /** The run, for the message: `run "<id>"` or `child run "<path>"`. */
  readonly run: string;
  /** What the user can do, for the message. */
  readonly remedy: string;
}): Promise<Graph> {
  const { store, path, text } = options;
  const checkpoint = await readCheckpointSafely(store);
  const recorded = checkpoint?.graph_sha256 ?? options.manifest.source_sha256;
  const graph = prepareGraph(text, { filename: path }).graph;
  const current = graph === undefined ? undefined : graphFingerprint(graph);
  if (graph === undefined || current !== recorded) {
    throw new ApiError({
      status: 409,
      code: 'SOURCE_CHANGED',
      message: `The DOT file ${path} of ${options.run} was changed since the run (${current === undefined ? 'it no longer parses' : `sha256 ${current.slice(0, 12)}… now`}; the run's graph is sha256 ${recorded.slice(0, 12)}…), so it is not the pipeline the run ran. ${options.remedy}.`,
    });
  }
  return graph;
}
