/**
 * `attractor worker`: takes runs from the shared queue and executes them against the shared run store, until
 * SIGTERM or Ctrl-C (then it stops its runs at their checkpoints and hands them back to the queue).
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Interviewer } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import type { PrepareRun, WorkerEvent } from '@attractor/worker';
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { lintOptionsOf, loadCliConfig } from '../config/load-cli-config.js';
import { resolveBackend } from '../run/backend-choice.js';
import type { RunCliOptions } from '../run/run-cli-options.js';
import {
  openRunCatalog,
  queueHintOption,
  requireQueueUrl,
  requireStoreUrl,
  serviceError,
} from '../shared/shared-locations.js';

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
}

/**
 * Runs a worker until it is stopped. Resolves with the exit code (0 after SIGTERM / Ctrl-C).
 * @throws {CliError} when the store or queue is not set, not reachable, or refuses.
 */
export async function workerCommand(options: {
  readonly options: WorkerCliOptions;
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  const colors = createColors(io.color);
  const storeUrl = requireStoreUrl(options.options.store, io, '`attractor worker`');
  const queueUrl = requireQueueUrl(options.options.queue, io, '`attractor worker`');
  const workdirRoot = resolve(
    io.cwd,
    options.options.workdirRoot ?? io.env.ATTRACTOR_WORKDIR_ROOT ?? '.attractor/work',
  );
  await mkdir(workdirRoot, { recursive: true });
  const config = await loadCliConfig({
    cwd: io.cwd,
    env: io.env,
    ...(options.options.config === undefined ? {} : { path: options.options.config }),
  });
  const catalog = await openRunCatalog(storeUrl, io);
  const { createRunServices } = await import('../run/create-run-services.js');
  const prepare: PrepareRun = async (request) => {
    const prepared = prepareGraph(request.source, {
      ...(request.filename === undefined ? {} : { filename: request.filename }),
      ...lintOptionsOf(config),
    });
    const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    if (prepared.graph === undefined || errors.length > 0) {
      throw new Error(
        `${request.filename ?? 'the pipeline'} has errors: ${errors.map((error) => error.message).join('; ')}`,
      );
    }
    const choice = (request.options ?? {}) as RunCliOptions;
    const services = await createRunServices({
      backend: resolveBackend(choice, io.env, io.cwd),
      graph: prepared.graph,
      interviewer: unusedInterviewer,
      workdir: request.workdir,
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      env: io.env,
      handlers: config.handlers,
    });
    return {
      graph: prepared.graph,
      registry: services.registry,
      backend: services.backend,
      secretValues: [...services.secretValues, ...(io.secretValues ?? [])],
      ...(choice.maxSteps === undefined ? {} : { maxSteps: choice.maxSteps }),
      ...(services.dispose === undefined ? {} : { dispose: services.dispose }),
    };
  };
  const { startWorker, QueueUnavailableError } = await import('@attractor/worker');
  let worker: Awaited<ReturnType<typeof startWorker>>;
  try {
    worker = await startWorker({
      catalog,
      queueUrl,
      workdirRoot,
      prepare,
      concurrency: options.options.concurrency ?? 1,
      ...(options.options.heartbeatSeconds === undefined
        ? {}
        : { heartbeatSeconds: options.options.heartbeatSeconds }),
      ...(options.options.superviseSeconds === undefined
        ? {}
        : { superviseIntervalSeconds: options.options.superviseSeconds }),
      ...(options.options.retryLimit === undefined ? {} : { retryLimit: options.options.retryLimit }),
      onEvent: (event) =>
        io.stderr.write(
          `${describe(event, `${cliCommand(io.env)} answer`, queueHintOption(options.options.queue, io))}\n`,
        ),
    });
  } catch (error) {
    await catalog.close();
    if (QueueUnavailableError.isInstance(error)) throw serviceError(error);
    throw error;
  }
  io.stderr.write(
    `${colors.bold('attractor worker')} ${worker.id}: ${options.options.concurrency ?? 1} at a time; store ${catalog.location}; workdirs under ${workdirRoot}\n`,
  );
  await new Promise<void>((resolveStop) => {
    const onSignal = (): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      io.stderr.write(`worker ${worker.id}: stopping; its runs go back to the queue\n`);
      void worker.stop().then(resolveStop, resolveStop);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await catalog.close();
  return 0;
}

/** The worker's own interviewer replaces this one in every run; it is never asked. */
const unusedInterviewer: Interviewer = {
  ask: () => Promise.reject(new Error('the worker asks human gates through the queue')),
};

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
    case 'warning':
      return `warning${event.runId === undefined ? '' : ` (run ${event.runId})`}: ${event.message}`;
  }
}
