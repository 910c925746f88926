/**
 * `attractor worker`: takes runs from the shared queue and executes them against the shared run store, each in an
 * executor process of its own (this command again, with `--run-executor`), within the worker's policy
 * (worker-policy.ts). SIGTERM or Ctrl-C drains it: running stages finish (up to `--drain-seconds`), their runs go
 * back to the queue at their checkpoint; a second signal hands everything back at once.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RunningWorker, WorkerEvent } from '@attractor/worker';
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { loadCliConfig } from '../config/load-cli-config.js';
import { CliError } from '../errors/cli-error.js';
import {
  openRunCatalog,
  QUEUE_KEY_SETTING,
  queueHintOption,
  queueKeyOf,
  requireQueueUrl,
  requireStoreUrl,
  serviceError,
} from '../shared/shared-locations.js';
import { createWorkerPrepare } from './create-worker-prepare.js';
import type { WorkerPolicy } from './worker-policy.js';

/** Options of `attractor worker`, as commander parses them. */
export interface WorkerCliOptions {
  readonly store?: string;
  readonly queue?: string;
  readonly concurrency?: number;
  readonly workdirRoot?: string;
  readonly config?: string;
  /** Seconds between heartbeats; a worker silent for this long loses its runs to other workers (min 10). */
  readonly heartbeatSeconds?: number;
  /** Seconds between this worker's looks for dead workers' runs. */
  readonly superviseSeconds?: number;
  /** Retries of a run's job (worker died, store failed) before the run is marked failed. Default: 5. */
  readonly retryLimit?: number;
  /** Crashes of a run's executor process before the run is marked failed. Default: 3. */
  readonly maxCrashes?: number;
  /** Heap limit of each executor process, in MB (`--max-old-space-size`). Default: Node's. */
  readonly executorMemory?: number;
  /** Seconds running stages get to finish after SIGTERM / Ctrl-C. Default: 30. */
  readonly drainSeconds?: number;
  /** Seconds to wait at start-up for the store and queue. Default: 60. */
  readonly waitForServices?: number;
  readonly allowTools?: boolean;
  readonly allowBaseUrl?: readonly string[];
  readonly allowProvider?: readonly string[];
  readonly allowDir?: readonly string[];
  /** Internal: this process is the executor of one run, started by a worker. */
  readonly runExecutor?: boolean;
}

/** The connections of an executor: few, it executes one run. */
const EXECUTOR_STORE_CONNECTIONS = 3;

/**
 * Runs a worker until it is stopped. Resolves with the exit code (0 after SIGTERM / Ctrl-C).
 * @throws {CliError} when the store or queue is not set, is not reachable within `--wait-for-services`, or refuses.
 */
export async function workerCommand(options: {
  readonly options: WorkerCliOptions;
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  const cli = options.options;
  const colors = createColors(io.color);
  const storeUrl = requireStoreUrl(cli.store, io, '`attractor worker`');
  const queueUrl = requireQueueUrl(cli.queue, io, '`attractor worker`');
  const workdirRoot = resolve(io.cwd, cli.workdirRoot ?? io.env.ATTRACTOR_WORKDIR_ROOT ?? '.attractor/work');
  const policy: WorkerPolicy = {
    allowTools: cli.allowTools === true,
    allowBaseUrls: cli.allowBaseUrl ?? [],
    allowProviders: cli.allowProvider?.map((name) => name.toLowerCase()),
    allowDirs: (cli.allowDir ?? ['.']).map((dir) => resolve(io.cwd, dir)),
  };
  if (cli.runExecutor === true) return executeOneRun({ io, cli, storeUrl, workdirRoot, policy });

  await mkdir(workdirRoot, { recursive: true });
  // The config file's plug-ins load in each executor; loading them here too reports a broken config at start-up.
  await loadCliConfig({
    cwd: io.cwd,
    env: io.env,
    ...(cli.config === undefined ? {} : { path: cli.config }),
  });
  const catalog = await openRunCatalog(storeUrl, io, { probe: false });
  const { startWorker, QueueUnavailableError } = await import('@attractor/worker');
  const queueKey = queueKeyOf(io);
  const log = (event: WorkerEvent) =>
    io.stderr.write(`${describe(event, `${cliCommand(io.env)} answer`, queueHintOption(cli.queue, io))}\n`);
  let worker: RunningWorker;
  try {
    worker = await startWorker({
      catalog,
      queueUrl,
      workdirRoot,
      // Each run in a process of its own: this command again, as started, in executor mode.
      executor: {
        command: process.execPath,
        args: [
          ...process.execArgv,
          ...(cli.executorMemory === undefined ? [] : [`--max-old-space-size=${cli.executorMemory}`]),
          process.argv[1] ?? '',
          ...process.argv.slice(2),
          '--run-executor',
        ],
      },
      concurrency: cli.concurrency ?? 1,
      ...(queueKey === undefined ? {} : { queueKey }),
      ...(cli.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: cli.heartbeatSeconds }),
      ...(cli.superviseSeconds === undefined ? {} : { superviseIntervalSeconds: cli.superviseSeconds }),
      ...(cli.retryLimit === undefined ? {} : { retryLimit: cli.retryLimit }),
      ...(cli.maxCrashes === undefined ? {} : { maxExecutorCrashes: cli.maxCrashes }),
      startupWaitSeconds: cli.waitForServices ?? 60,
      onEvent: log,
    });
  } catch (error) {
    await catalog.close();
    if (QueueUnavailableError.isInstance(error)) throw serviceError(error);
    if (error instanceof Error && !CliError.isInstance(error)) {
      throw new CliError({
        code: 'CLI_SERVICE_UNAVAILABLE',
        exitCode: 1,
        message: `The run store at ${catalog.location} (--store / ATTRACTOR_STORE_URL) is not available: ${error.message}.`,
        cause: error,
      });
    }
    throw error;
  }
  const drainSeconds = cli.drainSeconds ?? 30;
  io.stderr.write(
    `${colors.bold('attractor worker')} ${worker.id}: ${cli.concurrency ?? 1} at a time; store ${catalog.location}; workdirs under ${workdirRoot}; ${policy.allowTools ? 'tool stages allowed' : 'no tool stages (--allow-tools)'}${queueKey === undefined ? '' : `; runs signed with ${QUEUE_KEY_SETTING} only`}\n`,
  );
  await new Promise<void>((resolveStop) => {
    let signals = 0;
    const onSignal = (): void => {
      signals += 1;
      if (signals === 1 && drainSeconds > 0) {
        io.stderr.write(
          `worker ${worker.id}: draining: running stages may finish within ${drainSeconds} s, then their runs go back to the queue (signal again to hand them back now)\n`,
        );
        void worker.stop({ drainSeconds }).then(resolveStop, resolveStop);
        return;
      }
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      io.stderr.write(`worker ${worker.id}: stopping; its runs go back to the queue now\n`);
      void worker.stop().then(resolveStop, resolveStop);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await catalog.close();
  io.stderr.write(`worker ${worker.id}: stopped\n`);
  return 0;
}

/** `--run-executor`: executes the one run the worker that started this process sends, then exits. */
async function executeOneRun(options: {
  readonly io: CliIo;
  readonly cli: WorkerCliOptions;
  readonly storeUrl: string;
  readonly workdirRoot: string;
  readonly policy: WorkerPolicy;
}): Promise<number> {
  const { io, cli } = options;
  // The worker decides when to stop (it forwards a drain or a stop); a signal meant for it is not this run's end.
  process.on('SIGINT', () => undefined);
  const { serveRunExecutor } = await import('@attractor/worker');
  await serveRunExecutor({
    open: async () => {
      const config = await loadCliConfig({
        cwd: io.cwd,
        env: io.env,
        ...(cli.config === undefined ? {} : { path: cli.config }),
      });
      const catalog = await openRunCatalog(options.storeUrl, io, {
        maxConnections: EXECUTOR_STORE_CONNECTIONS,
      });
      return {
        catalog,
        prepare: createWorkerPrepare({
          io,
          config,
          policy: options.policy,
          workdirRoot: options.workdirRoot,
        }),
        environment: io.env,
        close: () => catalog.close(),
      };
    },
  });
  return 0;
}

/** One line of the worker's log; `answer` spells the answer command, `queueOption` what it adds to reach the queue. */
function describe(event: WorkerEvent, answer: string, queueOption: string): string {
  switch (event.type) {
    case 'run.started':
      return `run ${event.runId}: ${event.resumed ? 'resumed' : 'started'} (${event.trigger})`;
    case 'run.suspended':
      return `run ${event.runId}: waiting at gate "${event.stage}"; the worker is free (answer with: ${answer} ${event.runId} <key>${queueOption})`;
    case 'run.finished':
      return `run ${event.runId}: ${event.status}${event.failureReason === undefined ? '' : ` (${event.failureReason})`}`;
    case 'run.requeued':
      return `run ${event.runId}: handed back to the queue (${event.reason})`;
    case 'run.skipped':
      return `run ${event.runId}: nothing to do (${event.reason})`;
    case 'service.unavailable':
      return `the ${event.service === 'queue' ? 'run queue' : 'run store'} is not answering: ${event.message}${event.waitingUntil === undefined ? '; runs wait until it is back' : `; waiting for it until ${event.waitingUntil}`}`;
    case 'service.available':
      return `the ${event.service === 'queue' ? 'run queue' : 'run store'} is back (after ${Math.round(event.downForMs / 1000)} s)`;
    case 'warning':
      return `warning${event.runId === undefined ? '' : ` (run ${event.runId})`}: ${event.message}`;
  }
}
