/**
 * `startWorker`: takes runs from the pg-boss run queue and executes them with the engine against a shared run
 * catalog, `concurrency` at a time. A run suspended at a human gate frees its slot; a run whose worker died is
 * failed by pg-boss (missed heartbeats) and resumed by another worker from its last checkpoint.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { type Clock, type PipelineEvent, type PipelineTelemetry, systemClock } from '@attractor/engine';
import type pg from 'pg';
import type { Job } from 'pg-boss';
import type { WorkerRunCatalog } from './catalog-run-stores.js';
import { type ActiveRun, executeRunJob, type PrepareRun } from './execute-run-job.js';
import { failDeadRunJob } from './fail-dead-run-job.js';
import { observeRunJob } from './observe-run-job.js';
import { startProcessGroupGuard } from './process-group-guard.js';
import { CANCEL_CHANNEL, DEAD_RUN_QUEUE_NAME, RUN_QUEUE_NAME } from './queue-tables.js';
import { type ConnectRunQueueOptions, connectRunQueue, type RunJobData, type RunQueue } from './run-queue.js';
import { observeWorker } from './worker-metrics.js';

/** Something a worker did, for its log. */
export type WorkerEvent =
  | {
      readonly type: 'run.started';
      readonly runId: string;
      readonly resumed: boolean;
      readonly trigger: string;
    }
  | { readonly type: 'run.suspended'; readonly runId: string; readonly stage: string }
  | {
      readonly type: 'run.finished';
      readonly runId: string;
      readonly status: string;
      readonly failureReason?: string;
    }
  | { readonly type: 'run.requeued'; readonly runId: string; readonly reason: string }
  | { readonly type: 'run.skipped'; readonly runId: string; readonly reason: string }
  | { readonly type: 'warning'; readonly runId?: string; readonly message: string };

/** Options of {@link startWorker}. */
export interface StartWorkerOptions extends Omit<ConnectRunQueueOptions, 'url' | 'supervise'> {
  /** Where runs live (checkpoints, events, stage files): the shared store every worker and the server open. */
  readonly catalog: WorkerRunCatalog;
  /** The queue's PostgreSQL URL (`--queue` / `ATTRACTOR_QUEUE_URL`). */
  readonly queueUrl: string;
  /** Runs executed at once by this worker. Default: 1. */
  readonly concurrency?: number;
  /**
   * A directory every worker sees (a shared volume): run `R` works in `<workdirRoot>/R`, whichever worker executes
   * it, so a resumed run finds the files its earlier stages wrote.
   */
  readonly workdirRoot: string;
  /** Builds the graph, handlers and backend of a run from its request (the CLI parses the DOT and wires plug-ins). */
  readonly prepare: PrepareRun;
  /** The worker's id in the queue's records. Default: `<host>:<pid>:<random>`. */
  readonly workerId?: string;
  /** How often an idle worker looks for jobs when no notification came, in seconds. Default: 2. */
  readonly pollingIntervalSeconds?: number;
  /** Receives what the worker does (started, suspended, finished runs; warnings). */
  readonly onEvent?: (event: WorkerEvent) => void;
  /** Time source. Default: the system clock. */
  readonly clock?: Clock;
  /** End the worker's stage commands when it dies (a guard process). Default: true. */
  readonly guardProcessGroups?: boolean;
  /**
   * OpenTelemetry (a tracer and a meter from `@opentelemetry/api`): each job gets a `process attractor-runs` span in
   * the trace its run was enqueued in (`RunRequest.trace`), the parent of the engine's run span; the meter records the
   * engine's run metrics and the worker's (`WORKER_METRICS`: busy slots, the queue's runs by state, queue latency,
   * jobs). Default: none.
   */
  readonly telemetry?: PipelineTelemetry;
  /** Receives every event of the runs it executes, as the store records them (for a log of stages). */
  readonly onRunEvent?: (event: PipelineEvent) => void;
}

/** A running worker. */
export interface RunningWorker {
  readonly id: string;
  /** The ids of the runs it executes now. */
  running(): readonly string[];
  /** Resolves when the queue's PostgreSQL answers; rejects with why not (a readiness probe). */
  checkQueue(): Promise<void>;
  /**
   * Stops taking runs, stops the runs it executes (their checkpoints intact) and hands them back to the queue for
   * another worker, then closes its connections.
   */
  stop(): Promise<void>;
}

/**
 * Starts a worker. Resolves once it is connected and taking jobs.
 *
 * @example
 * const worker = await startWorker({ catalog, queueUrl, workdirRoot: '/shared/work', concurrency: 2, prepare });
 * process.on('SIGTERM', () => void worker.stop());
 * @throws {QueueUnavailableError} when the queue cannot be reached.
 */
export async function startWorker(options: StartWorkerOptions): Promise<RunningWorker> {
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`;
  const clock = options.clock ?? systemClock;
  const emit = options.onEvent ?? (() => undefined);
  const queue: RunQueue = await connectRunQueue({
    ...options,
    url: options.queueUrl,
    supervise: true,
    maxConnections: Math.max(4, (options.concurrency ?? 1) + 3),
  });
  const guard = options.guardProcessGroups === false ? undefined : startProcessGroupGuard();
  const runsRoot = join(options.workdirRoot, '.attractor', 'runs');
  /** The runs executing now, by run id. */
  const active = new Map<string, ActiveRun>();
  let stopping = false;
  const meter = options.telemetry?.meter;
  const metrics =
    meter === undefined
      ? undefined
      : observeWorker({ meter, queue, slots: options.concurrency ?? 1, busySlots: () => active.size });

  const listener = await listenForCancels(queue, clock, (runId, reason) => {
    active.get(runId)?.stop('cancel', reason);
  }).catch(async (error: unknown) => {
    guard?.close();
    await queue.close();
    throw error;
  });

  await queue.boss.work<RunJobData>(
    RUN_QUEUE_NAME,
    {
      localConcurrency: options.concurrency ?? 1,
      batchSize: 1,
      pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
      notifyPollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
    },
    async (jobs: Job<RunJobData>[]) => {
      for (const job of jobs) {
        const observe = { job, queue, workerId, clock, telemetry: options.telemetry, metrics, emit };
        await observeRunJob(observe, (observed) =>
          executeRunJob({
            job,
            queue,
            catalog: options.catalog,
            prepare: options.prepare,
            workdirRoot: options.workdirRoot,
            runsRoot,
            ...(guard === undefined ? {} : { onProcessGroups: (key, groups) => guard.set(key, groups) }),
            workerId,
            clock,
            emit: observed.emit,
            active,
            ...(observed.telemetry === undefined ? {} : { telemetry: observed.telemetry }),
            ...(options.onRunEvent === undefined ? {} : { onRunEvent: options.onRunEvent }),
          }),
        );
      }
    },
  );

  // Jobs that used up their retries: their runs end as failed instead of staying `running` forever.
  const deadOptions = {
    includeMetadata: true,
    batchSize: 1,
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
    notifyPollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
  } as const;
  await queue.boss.work<RunJobData, void, typeof deadOptions>(
    DEAD_RUN_QUEUE_NAME,
    deadOptions,
    async (jobs) => {
      for (const job of jobs) {
        await failDeadRunJob({ job, queue, catalog: options.catalog, clock, emit });
      }
    },
  );

  return {
    id: workerId,
    running: () => [...active.keys()],
    checkQueue: async () => {
      await queue.pool.query('SELECT 1');
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      await queue.boss.offWork(RUN_QUEUE_NAME, { wait: false }).catch(() => undefined);
      await queue.boss.offWork(DEAD_RUN_QUEUE_NAME, { wait: false }).catch(() => undefined);
      for (const run of active.values()) run.stop('stop', 'the worker is stopping');
      const deadline = clock.now() + 30_000;
      while (active.size > 0 && clock.now() < deadline) await clock.sleep(50);
      metrics?.stop();
      await listener.close();
      await queue.close();
      guard?.close();
    },
  };
}

/** LISTENs on the cancel channel with a dedicated connection; reconnects when it drops. */
async function listenForCancels(
  queue: RunQueue,
  clock: Clock,
  onCancel: (runId: string, reason: string) => void,
): Promise<{ close(): Promise<void> }> {
  let client: pg.PoolClient | undefined;
  let closed = false;
  const connect = async (): Promise<void> => {
    const next = await queue.pool.connect();
    next.on('notification', (message) => {
      if (message.channel !== CANCEL_CHANNEL || message.payload === undefined) return;
      try {
        const { runId, reason } = JSON.parse(message.payload) as { runId: string; reason?: string };
        onCancel(runId, reason ?? 'cancelled');
      } catch {
        // A payload not written by cancelRun: nothing to cancel.
      }
    });
    next.on('error', () => {
      next.release(true);
      if (client === next) client = undefined;
      if (!closed) void reconnect();
    });
    await next.query(`LISTEN ${CANCEL_CHANNEL}`);
    client = next;
  };
  const reconnect = async (): Promise<void> => {
    while (!closed) {
      await clock.sleep(1000);
      if (closed) return;
      try {
        await connect();
        return;
      } catch {
        // The server is still away: try again in a second.
      }
    }
  };
  await connect();
  return {
    async close() {
      closed = true;
      const current = client;
      client = undefined;
      if (current !== undefined) {
        await current.query(`UNLISTEN ${CANCEL_CHANNEL}`).catch(() => undefined);
        current.release();
      }
    },
  };
}
