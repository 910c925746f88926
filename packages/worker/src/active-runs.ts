/**
 * The runs a worker (or an executor process) executes now, by run id, with what was asked of all of them: a drain or
 * a stop applies to the runs under way and to any run that starts afterwards (a job fetched just as the worker began
 * to stop). Internal to the worker.
 */
import type { ActiveRun, StopCause } from './execute-run-job.js';

/** A map of the runs under way that also remembers a drain or stop for the runs still to come. */
export interface ActiveRuns extends Map<string, ActiveRun> {
  /** Asks every run, now and later, to stop at its next checkpoint. */
  drainAll(reason: string): void;
  /** Stops every run, now and later. */
  stopAll(cause: StopCause, reason: string): void;
}

/** Creates an empty {@link ActiveRuns}. */
export function createActiveRuns(): ActiveRuns {
  let asked: { readonly stop?: StopCause; readonly reason: string } | undefined;
  const apply = (run: ActiveRun) => {
    if (asked === undefined) return;
    if (asked.stop === undefined) run.drain(asked.reason);
    else run.stop(asked.stop, asked.reason);
  };
  const runs = new Map<string, ActiveRun>() as ActiveRuns;
  const track = runs.set.bind(runs);
  runs.set = (runId, run) => {
    track(runId, run);
    apply(run);
    return runs;
  };
  runs.drainAll = (reason) => {
    if (asked?.stop !== undefined) return;
    asked = { reason };
    for (const run of runs.values()) apply(run);
  };
  runs.stopAll = (cause, reason) => {
    asked = { stop: cause, reason };
    for (const run of runs.values()) apply(run);
  };
  return runs;
}
