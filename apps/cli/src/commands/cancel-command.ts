/**
 * `attractor cancel <run> [--reason TEXT]`: stops a run, keeping its checkpoint (it can be resumed).
 *
 * - A run id of the shared queue (`--queue` / `ATTRACTOR_QUEUE_URL`): the queue cancels it; a worker executing it stops
 *   it within about a second. `cancel` waits for that.
 * - A run directory (`.attractor/runs/<run>`), or a run id of a file store (`--store <dir>`): the process running it
 *   (`attractor run`, `serve`, on any host sharing the directory) is asked through the directory
 *   (`requestRunCancel`) and stops as on Ctrl-C; `cancel` waits until it has.
 * - A run no process executes any more (its runner was killed: `interrupted`): marked cancelled under its lock.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import {
  createFileRunCatalog,
  InvalidStoreNameError,
  type RunCatalog,
  type RunIndexEntry,
  RunLockedError,
  requestRunCancel,
} from '@attractor/engine';
import type { QueuedRunState, RunQueue } from '@attractor/worker';
import { cliCommand, quoteArgument } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';
import { markRunCancelled } from '../shared/mark-run-cancelled.js';
import {
  connectQueueOrExplain,
  openRunCatalog,
  queueHintOption,
  queueUrlOf,
  storeUrlOf,
} from '../shared/shared-locations.js';

/** Options of `attractor cancel`. */
export interface CancelCliOptions {
  readonly reason?: string;
  readonly queue?: string;
  readonly store?: string;
}

/** How long `cancel` waits for a runner to stop a run it was asked to cancel, in milliseconds. */
const STOP_WAIT_MS = 60_000;
/** How often it looks meanwhile, in milliseconds. */
const POLL_MS = 250;

/**
 * Cancels a run (see the module comment). Exit code 0 when the run is cancelled now (or was already), 1 when it had
 * already ended otherwise or its runner did not stop in time.
 * @throws {CliError} when no queue, store or directory knows the run, or a live runner outside the queue holds a run
 *   of a PostgreSQL store (nothing can reach it from here).
 */
export async function cancelCommand(options: {
  readonly run: string;
  readonly options: CancelCliOptions;
  readonly io: CliIo;
}): Promise<number> {
  const { io, run } = options;
  const reason = options.options.reason ?? 'cancelled with `attractor cancel`';
  const queueUrl = queueUrlOf(options.options.queue, io);
  if (queueUrl !== undefined && !run.includes('/')) {
    const queue = await connectQueueOrExplain(queueUrl);
    try {
      const before = await queue.cancelRun({ runId: run, reason });
      if (before !== undefined) {
        return await reportQueued({ queue, runId: run, before, io, queueOption: options.options.queue });
      }
    } finally {
      await queue.close();
    }
  }
  const directory = resolve(io.cwd, run);
  if (
    await stat(directory).then(
      (info) => info.isDirectory(),
      () => false,
    )
  ) {
    const catalog = createFileRunCatalog(dirname(directory));
    try {
      return await cancelInCatalog({
        catalog,
        runId: runIdOf(basename(directory), run),
        reason,
        io,
        shown: run,
        askRunner: () => requestRunCancel({ logsRoot: directory, reason }),
      });
    } finally {
      await catalog.close();
    }
  }
  const storeUrl = storeUrlOf(options.options.store, io);
  if (storeUrl === undefined) {
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `No run directory ${run}${queueUrl === undefined ? '' : ', and the queue has no such run'}. Give a run directory (e.g. .attractor/runs/<run>), or a run id with --queue <url> or --store <url> (or ATTRACTOR_QUEUE_URL / ATTRACTOR_STORE_URL).`,
    });
  }
  const catalog = await openRunCatalog(storeUrl, io);
  try {
    const isDirectoryStore = !/^postgres(ql)?:\/\//.test(storeUrl);
    return await cancelInCatalog({
      catalog,
      runId: runIdOf(run, run),
      reason,
      io,
      shown: run,
      ...(isDirectoryStore
        ? { askRunner: () => requestRunCancel({ logsRoot: resolve(catalog.location, run), reason }) }
        : {}),
    });
  } finally {
    await catalog.close();
  }
}

/** `name` when it is a run id a catalog can address; else a usage error about `given`. */
function runIdOf(name: string, given: string): string {
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name)) return name;
  throw new CliError({
    code: 'CLI_INVALID_INPUT',
    message: `${given} is not a run: a run id (and a run directory's name) holds letters, digits, ".", "_" and "-" only.`,
  });
}

/** Reports a cancel the queue took; waits for the worker of a running run to stop it. */
async function reportQueued(options: {
  readonly queue: RunQueue;
  readonly runId: string;
  readonly before: QueuedRunState;
  readonly io: CliIo;
  readonly queueOption: string | undefined;
}): Promise<number> {
  const { queue, runId, before, io } = options;
  const resume = `${cliCommand(io.env)} resume ${runId}${queueHintOption(options.queueOption, io)}`;
  if (before === 'success' || before === 'fail') {
    io.stderr.write(`run ${runId} already ended (${before}): there is nothing to cancel\n`);
    return 1;
  }
  if (before === 'cancelled') {
    io.stdout.write(`run ${runId} was already cancelled\n`);
    return 0;
  }
  if (before === 'running') {
    io.stderr.write(`cancelling run ${runId}: its worker stops it…\n`);
    const stopped = await waitFor(async () => {
      const state = (await queue.readRun(runId))?.state;
      return state === 'running' ? undefined : (state ?? 'cancelled');
    });
    if (stopped === undefined) {
      throw new CliError({
        code: 'CLI_SERVICE_UNAVAILABLE',
        exitCode: 1,
        message: `Run ${runId} is still running ${STOP_WAIT_MS / 1000} s after the queue asked its worker to stop it. The worker may be unreachable: it stops the run when it hears of it; a dead worker's run stays cancelled once the queue fails it over.`,
      });
    }
    if (stopped !== 'cancelled') {
      io.stderr.write(`run ${runId} ended (${stopped}) before its worker could cancel it\n`);
      return 1;
    }
  }
  io.stdout.write(`cancelled run ${runId} (it was ${before}); its checkpoint is kept: ${resume}\n`);
  return 0;
}

/** Cancels run `runId` of `catalog`; `askRunner` reaches a live runner (a file store's), when anything can. */
async function cancelInCatalog(options: {
  readonly catalog: RunCatalog;
  readonly runId: string;
  readonly reason: string;
  readonly io: CliIo;
  /** The run as the user named it, for messages. */
  readonly shown: string;
  readonly askRunner?: () => void;
}): Promise<number> {
  const { catalog, runId, io, shown } = options;
  const entry = await readEntry(catalog, runId);
  if (entry === undefined) {
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `${shown} is not a run of ${catalog.location}: it has no manifest.json. List runs with \`${cliCommand(io.env)} runs\`.`,
    });
  }
  const resume = `${cliCommand(io.env)} resume ${quoteArgument(shown)}`;
  if (entry.status === 'cancelled') {
    io.stdout.write(`run ${shown} was already cancelled\n`);
    return 0;
  }
  if (entry.status === 'success' || entry.status === 'fail') {
    io.stderr.write(`run ${shown} already ended (${entry.status}): there is nothing to cancel\n`);
    return 1;
  }
  const store = catalog.open(runId);
  try {
    const holder = await store.readLock();
    if (entry.status === 'interrupted' || (entry.status === 'waiting' && holder === undefined)) {
      if (entry.status === 'waiting') {
        throw new CliError({
          code: 'CLI_USAGE',
          message: `Run ${shown} waits at a human gate for a worker of the run queue: cancel it through the queue (--queue <url> or ATTRACTOR_QUEUE_URL), so that no worker resumes it.`,
        });
      }
      await markRunCancelled({ store, runId, reason: options.reason, now: new Date().toISOString() });
      io.stdout.write(
        `cancelled run ${shown}: its runner had died (it was interrupted); its checkpoint is kept: ${resume}\n`,
      );
      return 0;
    }
    if (options.askRunner === undefined) {
      throw new CliError({
        code: 'CLI_USAGE',
        message: `Run ${shown} is executed by process ${holder?.pid ?? '?'} on host ${holder?.host ?? '?'}, which nothing reaches from here: stop it there (Ctrl-C), or cancel it through the run queue that runs it (--queue <url>).`,
      });
    }
    options.askRunner();
    io.stderr.write(
      `cancelling run ${shown}: asked process ${holder?.pid ?? '?'} on host ${holder?.host ?? '?'} to stop it…\n`,
    );
    const stopped = await waitFor(async () => {
      const now = await readEntry(catalog, runId);
      return now === undefined || now.status === 'running' || now.status === 'waiting' ? undefined : now;
    });
    if (stopped === undefined) {
      throw new CliError({
        code: 'CLI_SERVICE_UNAVAILABLE',
        exitCode: 1,
        message: `Run ${shown} is still running ${STOP_WAIT_MS / 1000} s after its runner (process ${holder?.pid ?? '?'} on host ${holder?.host ?? '?'}) was asked to stop. A run of \`attractor worker\` is cancelled through its queue (--queue <url>); a runner older than this version does not look for the request: stop it with Ctrl-C in its terminal.`,
      });
    }
    if (stopped.status === 'interrupted') {
      await markRunCancelled({ store, runId, reason: options.reason, now: new Date().toISOString() });
    } else if (stopped.status !== 'cancelled') {
      io.stderr.write(`run ${shown} ended (${stopped.status}) before its runner could cancel it\n`);
      return 1;
    }
    io.stdout.write(`cancelled run ${shown}; its checkpoint is kept: ${resume}\n`);
    return 0;
  } catch (error) {
    if (RunLockedError.isInstance(error)) {
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        exitCode: 1,
        message: `Run ${shown} started running again meanwhile: ${error.message}`,
        cause: error,
      });
    }
    throw error;
  } finally {
    await store.close();
  }
}

async function readEntry(catalog: RunCatalog, runId: string): Promise<RunIndexEntry | undefined> {
  try {
    return await catalog.readRunEntry(runId);
  } catch (error) {
    if (InvalidStoreNameError.isInstance(error)) return undefined;
    throw error;
  }
}

/** Polls `check` until it returns a value, for at most {@link STOP_WAIT_MS}; undefined when it never did. */
async function waitFor<T>(check: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + STOP_WAIT_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((resolveSleep) => setTimeout(resolveSleep, POLL_MS));
  }
}
