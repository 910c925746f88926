/**
 * `inspect <run>` and `render --run <run>`: a run directory, or, when a store URL is set (`--store` /
 * `ATTRACTOR_STORE_URL`) and no such directory exists, a run id of the shared store.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { createFileRunCatalog, type RunCatalog } from '@attractor/engine';
import type { QueuedRun } from '@attractor/worker';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';
import { type RunDirectory, readForkStart, readRunDirectory } from '../inspect/read-run-directory.js';
import { sharedRunStatus } from './list-shared-runs.js';
import { openQueueReaderOrExplain, openRunCatalog, queueUrlOf, storeUrlOf } from './shared-locations.js';

/**
 * Reads a run from its directory or from the shared store.
 * @throws {CliError} when neither has it (the message names both places), or the store is unreachable.
 */
export async function readRunAnywhere(
  run: string,
  options: { readonly io: CliIo; readonly store?: string; readonly queue?: string },
): Promise<RunDirectory> {
  const { io } = options;
  const storeUrl = storeUrlOf(options.store, io);
  const isDirectory = await stat(resolve(io.cwd, run)).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (storeUrl === undefined || isDirectory || run.includes('/')) {
    const directory = await readRunDirectory(run, { cwd: io.cwd });
    const runs = createFileRunCatalog(dirname(directory.logsRoot));
    try {
      return withLiveState(directory, await liveStateOf(runs, basename(directory.logsRoot)));
    } finally {
      await runs.close();
    }
  }
  const catalog = await openRunCatalog(storeUrl, io);
  try {
    const store = catalog.open(run);
    const manifest = await store.readManifest();
    if (manifest === undefined) {
      const queued = await queuedOnly(run, io, options.queue);
      throw new CliError({
        code: 'CLI_FILE_NOT_FOUND',
        message:
          queued === undefined
            ? `No run "${run}" in the run store ${catalog.location} (--store / ATTRACTOR_STORE_URL), and no run directory of that name. List the store's runs with \`attractor runs\`.`
            : `Run "${run}" is in the run queue only: ${queued}. No worker has written it to the run store ${catalog.location}, so there is nothing to inspect; \`attractor runs\` lists it with the queue's view.`,
      });
    }
    const checkpoint = await store.readCheckpoint();
    const events = await store.readEvents();
    const forkStart = await readForkStart(store, manifest);
    const liveState = await liveStateOf(catalog, run);
    const deadLetter =
      liveState === undefined ? await deadLetterOf(catalog, run, io, options.queue) : undefined;
    await store.close();
    return {
      ...(liveState === undefined ? {} : { liveState }),
      ...(deadLetter === undefined ? {} : { deadLetter }),
      logsRoot: `${catalog.location}#${run}`,
      manifest,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      events,
      ...(forkStart === undefined ? {} : { forkStart }),
    };
  } finally {
    await catalog.close();
  }
}

/**
 * Where the queue (`ATTRACTOR_QUEUE_URL`) says a run stands that the store does not have (`queued`, or `fail: <why>`,
 * e.g. refused by a worker's policy), or undefined when no queue is set, it cannot be read or does not know the run.
 */
async function queuedOnly(runId: string, io: CliIo, option: string | undefined): Promise<string | undefined> {
  const queued = await readQueuedRun(runId, io, option);
  if (queued === undefined) return undefined;
  return queued.error === undefined ? queued.state : `${queued.state}: ${queued.error}`;
}

/**
 * The queue's reason for a run of the store it dead-lettered (its job used up its retries), by the rule `runs` lists
 * it with (`sharedRunStatus`); undefined when no queue is set, it cannot be read, or the run is not dead there.
 */
async function deadLetterOf(
  catalog: RunCatalog,
  runId: string,
  io: CliIo,
  option: string | undefined,
): Promise<RunDirectory['deadLetter']> {
  const queued = await readQueuedRun(runId, io, option);
  const entry = queued === undefined ? undefined : await catalog.readRunEntry(runId).catch(() => undefined);
  if (queued === undefined || entry === undefined) return undefined;
  return sharedRunStatus(entry.status, queued) === 'dead'
    ? { reason: queued.error ?? "its job went to the run queue's dead letter queue" }
    : undefined;
}

/** The queue's record of a run (`--queue` / `ATTRACTOR_QUEUE_URL`), or undefined when none is set, readable or has it. */
async function readQueuedRun(
  runId: string,
  io: CliIo,
  option: string | undefined,
): Promise<QueuedRun | undefined> {
  const url = queueUrlOf(option, io);
  if (url === undefined) return undefined;
  const queue = await openQueueReaderOrExplain(url).catch(() => undefined);
  if (queue === undefined) return undefined;
  try {
    return await queue.readRun(runId);
  } catch {
    return undefined;
  } finally {
    await queue.close();
  }
}

/**
 * What the run index says of a run that a live process may be executing: `running` or `waiting` (a live runner with an
 * open question, or a worker's run suspended at a gate, which `summarizeRun` tells apart by its log). Undefined when the
 * index has no such entry (a child run's directory, a name no run id can have).
 */
async function liveStateOf(catalog: RunCatalog, runId: string): Promise<'running' | 'waiting' | undefined> {
  const status = await catalog.readRunEntry(runId).then(
    (entry) => entry?.status,
    () => undefined,
  );
  return status === 'running' || status === 'waiting' ? status : undefined;
}

function withLiveState(run: RunDirectory, liveState: 'running' | 'waiting' | undefined): RunDirectory {
  return liveState === undefined ? run : { ...run, liveState };
}
