/**
 * `attractor worker`: takes runs from the shared queue and executes them against the shared run store, until
 * SIGTERM or Ctrl-C (then it stops its runs at their checkpoints and hands them back to the queue).
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { Interviewer } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import type { MetricsExposition } from '@attractor/server';
import type { PrepareRun, WorkerEvent } from '@attractor/worker';
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { lintOptionsOf, loadCliConfig } from '../config/load-cli-config.js';
import { CliError } from '../errors/cli-error.js';
import type { HealthListener } from '../observability/health-listener.js';
import { createJsonLog } from '../observability/json-log.js';
import { logRunEvent } from '../observability/log-run-event.js';
import { logWorkerEvent } from '../observability/log-worker-event.js';
import { startTelemetry } from '../observability/start-telemetry.js';
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
  /** `--otel`: export spans of jobs and runs (OpenTelemetry, configured by `OTEL_*`). */
  readonly otel?: boolean;
  /** `--otel-content`: `--otel`, with prompt and response text in the spans. */
  readonly otelContent?: boolean;
  /** `--log-format`: the console's lines (`human`, default) or one JSON object a line on stdout (`json`). */
  readonly logFormat?: 'human' | 'json';
  /** `--metrics-port`: serve `/healthz`, `/readyz` and `/metrics` on this port. */
  readonly metricsPort?: number;
  /** `--metrics-host`: the interface of that listener. Default: 127.0.0.1. */
  readonly metricsHost?: string;
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
  // Metrics for Prometheus with --metrics-port; spans with --otel or the OTEL_* variables.
  const observed = await startTelemetry({
    otel: options.options.otel === true || options.options.otelContent === true,
    content: options.options.otelContent === true,
    env: io.env,
    prometheus: options.options.metricsPort !== undefined,
    serviceName: 'attractor-worker',
  });
  const log =
    options.options.logFormat === 'json'
      ? createJsonLog({ output: io.stdout, service: 'attractor-worker' })
      : undefined;
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
      ...(observed.telemetry === undefined ? {} : { telemetry: observed.telemetry }),
      ...(log === undefined ? {} : { onRunEvent: (event) => logRunEvent(log, event) }),
      onEvent: (event) =>
        log === undefined
          ? io.stderr.write(
              `${describe(event, `${cliCommand(io.env)} answer`, queueHintOption(options.options.queue, io))}\n`,
            )
          : logWorkerEvent(log, event),
    });
  } catch (error) {
    await catalog.close();
    await observed.shutdown();
    if (QueueUnavailableError.isInstance(error)) throw serviceError(error);
    throw error;
  }
  const health =
    options.options.metricsPort === undefined || observed.metrics === undefined
      ? undefined
      : await startWorkerHealth({
          host: options.options.metricsHost ?? '127.0.0.1',
          port: options.options.metricsPort,
          metrics: observed.metrics,
          probes: {
            store: () => catalog.readRunEntry('attractor-readiness-probe'),
            queue: () => worker.checkQueue(),
          },
        }).catch(async (error: unknown) => {
          await worker.stop();
          await catalog.close();
          await observed.shutdown();
          throw error;
        });
  const started = {
    workerId: worker.id,
    concurrency: options.options.concurrency ?? 1,
    store: catalog.location,
    workdirRoot,
    ...(health === undefined ? {} : { health: health.url }),
    tracing: observed.tracing,
  };
  if (log === undefined) {
    io.stderr.write(
      `${colors.bold('attractor worker')} ${worker.id}: ${options.options.concurrency ?? 1} at a time; store ${catalog.location}; workdirs under ${workdirRoot}\n`,
    );
    if (health !== undefined)
      io.stderr.write(`health and metrics: ${health.url}/healthz, /readyz, /metrics\n`);
  } else {
    log.info(started, 'worker started');
  }
  await new Promise<void>((resolveStop) => {
    const onSignal = (): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if (log === undefined)
        io.stderr.write(`worker ${worker.id}: stopping; its runs go back to the queue\n`);
      else log.info({ workerId: worker.id }, 'worker stopping; its runs go back to the queue');
      void worker.stop().then(resolveStop, resolveStop);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await health?.close();
  await catalog.close();
  await observed.shutdown();
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

/**
 * The worker's health listener (`--metrics-port`): readiness from the store and queue probes, Prometheus text.
 * @throws {CliError} when the port cannot be bound.
 */
async function startWorkerHealth(options: {
  readonly host: string;
  readonly port: number;
  readonly metrics: () => Promise<MetricsExposition>;
  readonly probes: Readonly<Record<string, () => Promise<unknown>>>;
}): Promise<HealthListener> {
  const [{ checkReadiness }, { startHealthListener }] = await Promise.all([
    import('@attractor/server'),
    import('../observability/health-listener.js'),
  ]);
  try {
    return await startHealthListener({
      host: options.host,
      port: options.port,
      metrics: options.metrics,
      ready: () =>
        checkReadiness({ probes: options.probes, sleep: (ms, signal) => delay(ms, undefined, { signal }) }),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError({
      code: 'CLI_USAGE',
      message: `Cannot listen on ${options.host}:${options.port} for --metrics-port (${code ?? String(error)}). Choose another --metrics-port (0 picks a free one) or --metrics-host.`,
      cause: error,
    });
  }
}
