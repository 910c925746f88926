/**
 * `startWorker`: takes runs from the pg-boss run queue and executes them with the engine against a shared run
 * catalog, `concurrency` at a time, each in an executor process of its own (`executor`) so that a run that kills
 * or exhausts its process costs only its own retries. A run suspended at a human gate frees its slot; a run whose
 * worker died is failed by pg-boss (missed heartbeats) and resumed by another worker from its last checkpoint.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { type Clock, systemClock } from '@attractor/engine';
import type pg from 'pg';
import type { Job } from 'pg-boss';
import { type ActiveRuns, createActiveRuns } from './active-runs.js';
import type { WorkerRunCatalog } from './catalog-run-stores.js';
import { executeRunJob, type PrepareRun } from './execute-run-job.js';
import { failDeadRunJob } from './fail-dead-run-job.js';
import { startProcessGroupGuard } from './process-group-guard.js';
import { CANCEL_CHANNEL, DEAD_RUN_QUEUE_NAME, RUN_QUEUE_NAME } from './queue-tables.js';
import { type RunExecutorCommand, runInExecutor } from './run-in-executor.js';
import { type ConnectRunQueueOptions, connectRunQueue, type RunJobData, type RunQueue } from './run-queue.js';
import { connectWhenAvailable, watchServices } from './watch-services.js';

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
  /** The queue or the store stopped answering (at start-up: the worker waits for it). Once per outage. */
  | {
      readonly type: 'service.unavailable';
      readonly runId?: undefined;
      readonly service: WorkerService;
      readonly message: string;
      /** At start-up: until when the worker waits (ISO-8601) before it gives up. */
      readonly waitingUntil?: string;
    }
  /** The queue or the store answers again after a {@link WorkerEvent} `service.unavailable`. */
  | {
      readonly type: 'service.available';
      readonly runId?: undefined;
      readonly service: WorkerService;
      readonly downForMs: number;
    }
  | { readonly type: 'warning'; readonly runId?: string; readonly message: string };

/** What a worker depends on: the run queue (pg-boss and its table) and the shared run store. */
export type WorkerService = 'queue' | 'store';

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
  /**
   * How to start the executor process of each run (a program that calls `serveRunExecutor`): crash containment.
   * A stage that kills its process (`kill -9 $PPID`) or runs it out of memory then ends that run's executor only, and
   * the crash counts against that run alone (see `maxExecutorCrashes`). Without it, runs execute inside the worker
   * with `prepare`, and such a run takes the worker and all of its runs down.
   */
  readonly executor?: RunExecutorCommand;
  /**
   * Builds the graph, handlers and backend of a run from its request (the CLI parses the DOT and wires plug-ins), for
   * runs executed inside the worker (no `executor`). Required without `executor`.
   */
  readonly prepare?: PrepareRun;
  /**
   * How many times a run may crash its executor process before it ends failed (with the crash as its reason, through
   * the dead letter queue). Crashes are counted per run in the queue's table and reset by `resumeRun`. Default: 3.
   */
  readonly maxExecutorCrashes?: number;
  /**
   * The worker's environment (runs executed inside the worker): masked context secrets are read from it (see
   * `resolveSecretContext`). Executors read their own (`RunExecutorServices.environment`). Default: none.
   */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /**
   * How long to wait at start-up for the queue and the store to answer, in seconds, saying once that it waits
   * (a `service.unavailable` event). Default: 0 (fail at once).
   */
  readonly startupWaitSeconds?: number;
  /** How often the worker checks that the queue and the store answer, in seconds. Default: 5. */
  readonly healthIntervalSeconds?: number;
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
}

/** A running worker. */
export interface RunningWorker {
  readonly id: string;
  /** The ids of the runs it executes now. */
  running(): readonly string[];
  /**
   * Stops taking runs and closes its connections once its runs are handed back. With `drainSeconds`, each run first
   * finishes the stage it is in (its checkpoint written), and is then handed back to the queue: another worker goes
   * on with the next stage; a stage still running after `drainSeconds` is interrupted and handed back (it runs again
   * elsewhere). Without (or called again while draining), the runs are stopped and handed back at once.
   */
  stop(options?: { readonly drainSeconds?: number }): Promise<void>;
}

/**
 * Starts a worker. Resolves once it is connected and taking jobs.
 *
 * @example
 * const worker = await startWorker({ catalog, queueUrl, workdirRoot: '/shared/work', concurrency: 2, prepare });
 * process.on('SIGTERM', () => void worker.stop());
 * @throws {QueueUnavailableError} when the queue cannot be reached (within `startupWaitSeconds`).
 * @throws {Error} when neither `executor` nor `prepare` is given.
 */
export async function startWorker(options: StartWorkerOptions): Promise<RunningWorker> {
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`;
  const clock = options.clock ?? systemClock;
  const emit = options.onEvent ?? (() => undefined);
  const { executor, prepare } = options;
  if (executor === undefined && prepare === undefined) {
    throw new Error('startWorker needs `executor` (each run in a process of its own) or `prepare`.');
  }
  const queue: RunQueue = await connectWhenAvailable({
    connect: () =>
      connectRunQueue({
        ...options,
        url: options.queueUrl,
        supervise: true,
        maxConnections: Math.max(4, (options.concurrency ?? 1) + 3),
      }),
    catalog: options.catalog,
    waitSeconds: options.startupWaitSeconds ?? 0,
    clock,
    emit,
  });
  if (options.queueKey === undefined) {
    emit({
      type: 'warning',
      message:
        'no queue key: this worker executes any run in the queue, also one written into its table by someone else; give the workers and everyone who enqueues the same key (ATTRACTOR_QUEUE_KEY for the CLI)',
    });
  }
  const guard = options.guardProcessGroups === false ? undefined : startProcessGroupGuard();
  const runsRoot = join(options.workdirRoot, '.attractor', 'runs');
  /** The runs executing now, by run id. */
  const active: ActiveRuns = createActiveRuns();
  let stopping: Promise<void> | undefined;
  const monitor = watchServices({
    queue,
    catalog: options.catalog,
    intervalSeconds: options.healthIntervalSeconds ?? 5,
    clock,
    emit,
  });

  const listener = await listenForCancels(queue, clock, (runId, reason) => {
    active.get(runId)?.stop('cancel', reason);
  }).catch(async (error: unknown) => {
    monitor.close();
    guard?.close();
    await queue.close();
    throw error;
  });
  const onProcessGroups =
    guard === undefined
      ? undefined
      : (key: string, groups: readonly number[]) => {
          guard.set(key, groups);
        };
  const maxCrashes = options.maxExecutorCrashes ?? 3;

  /** Executes one run job: checks its signature, then runs it in an executor process (or here). */
  const handleRunJob = async (job: Job<RunJobData>): Promise<void> => {
    const { runId } = job.data;
    if (options.queueKey !== undefined) {
      const check = await queue.verifyRun(runId);
      if (check === 'unsigned' || check === 'invalid') {
        const error = `refused: the run's request is ${check === 'unsigned' ? 'not signed' : 'signed with another key, or was changed after it was enqueued'}, and this worker executes only runs enqueued with its queue key (ATTRACTOR_QUEUE_KEY for the CLI)`;
        await queue.failRun({ runId, error });
        emit({ type: 'run.finished', runId, status: 'fail', failureReason: error });
        return;
      }
    }
    if (executor === undefined) {
      await executeRunJob({
        job,
        queue,
        catalog: options.catalog,
        prepare: prepare!,
        workdirRoot: options.workdirRoot,
        runsRoot,
        ...(onProcessGroups === undefined ? {} : { onProcessGroups }),
        workerId,
        clock,
        emit,
        active,
        ...(options.environment === undefined ? {} : { environment: options.environment }),
      });
      return;
    }
    const outcome = await runInExecutor({
      executor,
      job,
      queue,
      workerId,
      workdirRoot: options.workdirRoot,
      runsRoot,
      emit,
      ...(onProcessGroups === undefined ? {} : { onProcessGroups }),
      active,
    });
    if (outcome.kind === 'done') return;
    if (outcome.kind === 'failed') throw new Error(outcome.message);
    // The executor crashed: this run's count grows, no other run's does; at the limit the run ends.
    const crashes = await queue.recordCrash(runId);
    if (crashes >= maxCrashes) {
      await queue.deadLetter({
        ...job.data,
        reason: `${outcome.description}; the run crashed its executor ${crashes} time${crashes === 1 ? '' : 's'} (the limit is ${maxCrashes})`,
      });
      return;
    }
    await queue.settleRun({ runId, state: 'queued' });
    await queue.sendJob(
      { runId, trigger: 'requeue' },
      new Date(clock.now() + (options.retryDelaySeconds ?? 2) * 1000),
    );
    emit({
      type: 'run.requeued',
      runId,
      reason: `${outcome.description}; crash ${crashes} of ${maxCrashes}`,
    });
  };

  await queue.boss.work<RunJobData>(
    RUN_QUEUE_NAME,
    {
      localConcurrency: options.concurrency ?? 1,
      batchSize: 1,
      pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
      notifyPollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
    },
    async (jobs: Job<RunJobData>[]) => {
      for (const job of jobs) await handleRunJob(job);
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
    stop(stopOptions = {}) {
      const drainMs = Math.max(0, (stopOptions.drainSeconds ?? 0) * 1000);
      if (stopping !== undefined) {
        // Asked again while draining: hand everything back now.
        if (drainMs === 0) active.stopAll('stop', 'the worker is stopping');
        return stopping;
      }
      stopping = (async () => {
        await queue.boss.offWork(RUN_QUEUE_NAME, { wait: false }).catch(() => undefined);
        await queue.boss.offWork(DEAD_RUN_QUEUE_NAME, { wait: false }).catch(() => undefined);
        if (drainMs > 0) {
          active.drainAll('the worker is draining: handed back after the stage it was in');
          const drainDeadline = clock.now() + drainMs;
          while (active.size > 0 && clock.now() < drainDeadline) await clock.sleep(50);
        }
        active.stopAll(
          'stop',
          drainMs > 0 ? 'the worker is stopping: its drain time is over' : 'the worker is stopping',
        );
        const deadline = clock.now() + 30_000;
        while (active.size > 0 && clock.now() < deadline) await clock.sleep(50);
        monitor.close();
        await listener.close();
        await queue.close();
        guard?.close();
      })();
      return stopping;
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
