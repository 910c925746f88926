/**
 * `attractor worker`: takes runs from the shared queue and executes them against the shared run store, each in an
 * executor process of its own (this command again, with `--run-executor`), within the worker's policy
 * (worker-policy.ts). SIGTERM or Ctrl-C drains it: running stages finish (up to `--drain-seconds`), their runs go
 * back to the queue at their checkpoint; a second signal hands everything back at once.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { MetricsExposition } from '@attractor/server';
import type { RunningWorker, WorkerEvent } from '@attractor/worker';
import { claimInterrupt } from '../claim-interrupt.js';
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { loadCliConfig } from '../config/load-cli-config.js';
import { CliError } from '../errors/cli-error.js';
import type { HealthListener } from '../observability/health-listener.js';
import { createJsonLog } from '../observability/json-log.js';
import { logRunEvent } from '../observability/log-run-event.js';
import { logWorkerEvent } from '../observability/log-worker-event.js';
import { startTelemetry } from '../observability/start-telemetry.js';
import { resolveSandbox, type SandboxKind } from '../run/resolve-sandbox.js';
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
import { describeWorkerWorkspace, type WorkerWorkspace, workerWorkspaceOf } from './worker-workspace.js';

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
  /** `--sandbox`: confine the tool and agent stage commands of every run this worker executes (`bwrap`). */
  readonly sandbox?: SandboxKind;
  /** Where runs change files unless the run or its graph chooses (README "Workspaces"). Default: in-place. */
  readonly workspace?: 'git' | 'copy' | 'in-place' | 'auto';
  /** A git repository every worker pushes runs' branches to and fetches them from. */
  readonly workspaceRemote?: string;
  /** Keep runs' commits as bundles in the run store (default: without `workspaceRemote`). */
  readonly workspaceBundles?: boolean;
  /** Author of the runs' commits, `Name <email>`. */
  readonly commitAuthor?: string;
  /** Internal: this process is the executor of one run, started by a worker. */
  readonly runExecutor?: boolean;
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
  const workspace = await workerWorkspaceOf(cli, io, workdirRoot);
  if (cli.runExecutor === true) return executeOneRun({ io, cli, storeUrl, workdirRoot, policy, workspace });

  await mkdir(workdirRoot, { recursive: true });
  // The config file's plug-ins load in each executor; loading them here too reports a broken config at start-up.
  const config = await loadCliConfig({
    cwd: io.cwd,
    env: io.env,
    ...(cli.config === undefined ? {} : { path: cli.config }),
  });
  // A worker asked to confine its runs refuses to start where the sandbox cannot work (each executor checks again).
  await resolveSandbox({ kind: cli.sandbox ?? config.defaults.sandbox, env: io.env });
  const catalog = await openRunCatalog(storeUrl, io, { probe: false });
  const { startWorker, QueueUnavailableError } = await import('@attractor/worker');
  const queueKey = queueKeyOf(io);
  // Metrics for Prometheus with --metrics-port; spans with --otel or the OTEL_* variables.
  const observed = await startTelemetry({
    cli: cli,
    env: io.env,
    prometheus: cli.metricsPort !== undefined,
    serviceName: 'attractor-worker',
  });
  const jsonLog =
    cli.logFormat === 'json' ? createJsonLog({ output: io.stdout, service: 'attractor-worker' }) : undefined;
  const log = (event: WorkerEvent) => {
    if (jsonLog !== undefined) logWorkerEvent(jsonLog, event);
    else
      io.stderr.write(`${describe(event, `${cliCommand(io.env)} answer`, queueHintOption(cli.queue, io))}\n`);
  };
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
      ...(observed.telemetry === undefined ? {} : { telemetry: observed.telemetry }),
      ...(jsonLog === undefined ? {} : { onRunEvent: (event) => logRunEvent(jsonLog, event) }),
    });
  } catch (error) {
    await catalog.close();
    await observed.shutdown();
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
  const health =
    cli.metricsPort === undefined || observed.metrics === undefined
      ? undefined
      : await startWorkerHealth({
          host: cli.metricsHost ?? '127.0.0.1',
          port: cli.metricsPort,
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
  if (jsonLog === undefined) {
    io.stderr.write(
      `${colors.bold('attractor worker')} ${worker.id}: ${cli.concurrency ?? 1} at a time; store ${catalog.location}; workdirs under ${workdirRoot}; ${describeWorkerWorkspace(workspace)}; ${policy.allowTools ? 'tool stages allowed' : 'no tool stages (--allow-tools)'}${queueKey === undefined ? '' : `; runs signed with ${QUEUE_KEY_SETTING} only`}\n`,
    );
    if (health !== undefined)
      io.stderr.write(`health and metrics: ${health.url}/healthz, /readyz, /metrics\n`);
  } else {
    jsonLog.info(
      {
        workerId: worker.id,
        concurrency: cli.concurrency ?? 1,
        store: catalog.location,
        workdirRoot,
        workspace: describeWorkerWorkspace(workspace),
        allowTools: policy.allowTools,
        signedRunsOnly: queueKey !== undefined,
        ...(health === undefined ? {} : { health: health.url }),
        tracing: observed.tracing,
      },
      'worker started',
    );
  }
  await new Promise<void>((resolveStop) => {
    let signals = 0;
    const onSignal = claimInterrupt((): void => {
      signals += 1;
      if (signals === 1 && drainSeconds > 0) {
        say(
          `worker ${worker.id}: draining: running stages may finish within ${drainSeconds} s, then their runs go back to the queue (signal again to hand them back now)`,
        );
        void worker.stop({ drainSeconds }).then(resolveStop, resolveStop);
        return;
      }
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      say(`worker ${worker.id}: stopping; its runs go back to the queue now`);
      void worker.stop().then(resolveStop, resolveStop);
    });
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await health?.close();
  await catalog.close();
  await observed.shutdown();
  say(`worker ${worker.id}: stopped`);
  return 0;

  /** A line about the worker itself: on the console, or in the JSON log. */
  function say(message: string): void {
    if (jsonLog === undefined) io.stderr.write(`${message}\n`);
    else jsonLog.info({ workerId: worker.id }, message);
  }
}

/** `--run-executor`: executes the one run the worker that started this process sends, then exits. */
async function executeOneRun(options: {
  readonly io: CliIo;
  readonly cli: WorkerCliOptions;
  readonly storeUrl: string;
  readonly workdirRoot: string;
  readonly policy: WorkerPolicy;
  readonly workspace: WorkerWorkspace;
}): Promise<number> {
  const { io, cli } = options;
  // The worker decides when to stop (it forwards a drain or a stop); a signal meant for it is not this run's end.
  process.on('SIGINT', () => undefined);
  const { serveRunExecutor } = await import('@attractor/worker');
  await serveRunExecutor({
    open: async () => {
      // The executor's own spans (the worker sends its job span's context); its run metrics are the worker's.
      const observed = await startTelemetry({
        cli: cli,
        env: io.env,
        prometheus: false,
        serviceName: 'attractor-worker',
      });
      const config = await loadCliConfig({
        cwd: io.cwd,
        env: io.env,
        ...(cli.config === undefined ? {} : { path: cli.config }),
      });
      const sandbox = await resolveSandbox({ kind: cli.sandbox ?? config.defaults.sandbox, env: io.env });
      const catalog = await openRunCatalog(options.storeUrl, io, {
        maxConnections: EXECUTOR_STORE_CONNECTIONS,
      });
      return {
        catalog,
        prepare: createWorkerPrepare({
          io,
          config,
          ...(sandbox === undefined ? {} : { sandbox }),
          policy: options.policy,
          workdirRoot: options.workdirRoot,
          workspace: options.workspace,
        }),
        environment: io.env,
        ...(observed.telemetry?.tracer === undefined
          ? {}
          : { telemetry: { tracer: observed.telemetry.tracer, recordContent: cli.otelContent === true } }),
        close: async () => {
          await catalog.close();
          await observed.shutdown();
        },
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
