/**
 * A run job that pg-boss dead-lettered (it failed more times than the run queue's `retryLimit`: its worker died each
 * time, or the store kept failing) ends its run: the queue marks the run failed with the reason, and the run's event
 * log gets a `pipeline.failed` so the run index, `attractor runs`, the server and `attractor run --queue --wait` all
 * see it failed. `attractor resume <run>` (or the server's resume) queues it again from its last checkpoint.
 */
import { type Clock, type PipelineFailedEvent, RunLockedError } from '@attractor/engine';
import type { JobWithMetadata } from 'pg-boss';
import type { WorkerRunCatalog } from './catalog-run-stores.js';
import type { RunJobData, RunQueue } from './run-queue.js';
import type { WorkerEvent } from './start-worker.js';

/** Options of {@link failDeadRunJob}. Internal to the worker. */
export interface FailDeadRunJobOptions {
  /** The dead-lettered copy of the run job (`includeMetadata`: it carries the original's retry count and output). */
  readonly job: JobWithMetadata<RunJobData>;
  readonly queue: RunQueue;
  readonly catalog: WorkerRunCatalog;
  readonly clock: Clock;
  readonly emit: (event: WorkerEvent) => void;
}

/**
 * Marks the run of a dead-lettered job failed: `the run's job failed N times: <last error>`. A run that ended,
 * was cancelled or waits at a gate meanwhile is left alone, unless the dead job was the deadline job of the gate the
 * run still waits at: then no job would ever apply that deadline, and the run would show `waiting` forever, so it
 * fails too (resumed, it takes the gate's default, the deadline having passed). Rejects when the queue or the store
 * cannot be written (pg-boss retries the dead letter job).
 */
export async function failDeadRunJob(options: FailDeadRunJobOptions): Promise<void> {
  const { job, queue, emit } = options;
  const { runId } = job.data;
  const attempts = (job.sourceRetryCount ?? job.retryCount) + 1;
  const reason =
    job.data.reason ??
    `the run's job failed ${attempts} time${attempts === 1 ? '' : 's'}: ${lastError(job.sourceOutput)}`;
  const queued = await queue.readRun(runId);
  if (queued === undefined) {
    emit({ type: 'run.skipped', runId, reason: 'the queue has no such run' });
    return;
  }
  const alreadyFailed = queued.state === 'fail' && queued.error === reason;
  const deadlineOf =
    job.data.trigger === 'timeout' && job.data.questionId !== undefined
      ? { questionId: job.data.questionId }
      : {};
  if (!alreadyFailed && !(await queue.failRun({ runId, error: reason, ...deadlineOf }))) {
    emit({ type: 'run.skipped', runId, reason: `a dead job's run is ${queued.state}, not executing` });
    return;
  }
  await recordFailure(options, reason);
  emit({ type: 'run.finished', runId, status: 'fail', failureReason: reason });
}

/**
 * Appends `pipeline.failed` to the run's event log (once), holding the run lock so that no runner writes events
 * meanwhile. A run without a manifest (never started) has no log: the queue's record alone says it failed. A run
 * whose lock a live runner holds keeps its log (that runner writes its end).
 */
async function recordFailure(options: FailDeadRunJobOptions, reason: string): Promise<void> {
  const { runId } = options.job.data;
  const store = options.catalog.open(runId);
  try {
    const manifest = await store.readManifest();
    if (manifest === undefined) return;
    const lock = await store
      .acquireLock({ since: new Date(options.clock.now()).toISOString() })
      .catch((error: unknown) => {
        if (RunLockedError.isInstance(error)) return undefined;
        throw error;
      });
    if (lock === undefined) {
      options.emit({
        type: 'warning',
        runId,
        message: `run ${runId} failed (${reason}) but a live runner holds it`,
      });
      return;
    }
    try {
      const last = (
        await store.readEvents({ afterSeq: Math.max(0, (await store.readLastEventSeq()) - 1) })
      ).at(-1);
      if (last?.type === 'pipeline.failed' && last.error === reason) return;
      const checkpoint = await store.readCheckpoint().catch(() => undefined);
      const nodeId = checkpoint?.next_node ?? checkpoint?.current_node;
      const failed: PipelineFailedEvent = {
        seq: (await store.readLastEventSeq()) + 1,
        timestamp: new Date(options.clock.now()).toISOString(),
        runId: manifest.run_id,
        type: 'pipeline.failed',
        error: reason,
        durationMs: 0,
        ...(nodeId === undefined || nodeId === null || nodeId === '' ? {} : { nodeId }),
      };
      await store.appendEvents([failed]);
    } finally {
      await lock.release();
    }
  } finally {
    await store.close();
  }
}

/** The message of a failed job's output: a serialized error (`{ message }`) or pg-boss's `{ value: { message } }`. */
function lastError(output: object | null | undefined): string {
  const message = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as { message?: unknown; value?: unknown };
    if (typeof record.message === 'string') return record.message;
    return message(record.value);
  };
  return message(output) ?? 'no error was recorded';
}
