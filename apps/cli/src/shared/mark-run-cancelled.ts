/**
 * Ends a run that no runner executes (its runner died: `interrupted`, or a worker suspended it at a gate) as
 * cancelled, through its store: under the run lock, its event log gets the `pipeline.cancelled` a runner would have
 * written (the run index then says `cancelled`); its checkpoint is kept, so `resume` can still continue it.
 */
import type { PipelineCancelledEvent, RunStore } from '@attractor/engine';

/**
 * Appends `pipeline.cancelled` with `reason` to the run's log under its lock. Taking the lock of a dead runner ends
 * the process groups it left running (on this host).
 * @throws {RunLockedError} when a live runner holds the run after all.
 */
export async function markRunCancelled(options: {
  readonly store: RunStore;
  readonly runId: string;
  readonly reason: string;
  /** Now, ISO-8601. */
  readonly now: string;
}): Promise<void> {
  const { store } = options;
  const lock = await store.acquireLock({ since: options.now });
  try {
    const cancelled: PipelineCancelledEvent = {
      seq: (await store.readLastEventSeq()) + 1,
      timestamp: options.now,
      runId: options.runId,
      type: 'pipeline.cancelled',
      reason: options.reason,
      durationMs: 0,
    };
    await store.appendEvents([cancelled]);
  } finally {
    await lock.release();
  }
}
