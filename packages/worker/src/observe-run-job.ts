/**
 * Telemetry around one run job (see run-job-span.ts and worker-metrics.ts): reads the run's stored trace, starts the
 * job's span, hands the engine its telemetry with that span as the parent, and records the job's outcome and, on a
 * run's first start, how long it waited in the queue.
 */
import type { Clock, PipelineTelemetry } from '@attractor/engine';
import type { Context as TraceContext } from '@opentelemetry/api';
import type { RunJob } from './execute-run-job.js';
import { jobOutcomeOf, type RunJobOutcome, startRunJobSpan } from './run-job-span.js';
import type { RunQueue } from './run-queue.js';
import type { WorkerEvent } from './start-worker.js';
import type { WorkerMetrics } from './worker-metrics.js';

/** Options of {@link observeRunJob}. */
export interface ObserveRunJobOptions {
  readonly job: RunJob;
  readonly queue: Pick<RunQueue, 'readRun'>;
  readonly workerId: string;
  readonly clock: Clock;
  readonly telemetry: PipelineTelemetry | undefined;
  readonly metrics: WorkerMetrics | undefined;
  readonly emit: (event: WorkerEvent) => void;
}

/**
 * What the job's execution gets: the engine's tracing for its run (the job's span as the parent; no meter: the
 * worker records the runs' metrics from their events) and the worker's event sink.
 */
export interface ObservedRunJob {
  readonly telemetry?: PipelineTelemetry & { readonly parentContext: TraceContext };
  readonly emit: (event: WorkerEvent) => void;
}

/** Runs `execute` (the job) under its span and metrics; without telemetry, as it is. */
export async function observeRunJob(
  options: ObserveRunJobOptions,
  execute: (observed: ObservedRunJob) => Promise<void>,
): Promise<void> {
  const { telemetry, metrics, job } = options;
  if (telemetry === undefined) return execute({ emit: options.emit });
  const queued = await options.queue.readRun(job.data.runId).catch(() => undefined);
  const span =
    telemetry.tracer === undefined
      ? undefined
      : startRunJobSpan({
          tracer: telemetry.tracer,
          job,
          workerId: options.workerId,
          trace: queued?.request.trace,
        });
  let outcome: RunJobOutcome | undefined;
  const emit = (event: WorkerEvent) => {
    if (event.runId === job.data.runId) {
      outcome = jobOutcomeOf(event) ?? outcome;
      if (
        event.type === 'run.started' &&
        !event.resumed &&
        queued !== undefined &&
        queued.startedAt === undefined
      ) {
        metrics?.waited(Math.max(0, options.clock.now() - Date.parse(queued.enqueuedAt)) / 1000);
      }
    }
    options.emit(event);
  };
  try {
    await execute({
      emit,
      ...(span === undefined || telemetry.tracer === undefined
        ? {}
        : {
            telemetry: {
              tracer: telemetry.tracer,
              parentContext: span.context,
              ...(telemetry.recordContent === undefined ? {} : { recordContent: telemetry.recordContent }),
            },
          }),
    });
  } catch (error) {
    span?.end(outcome, error);
    throw error;
  }
  span?.end(outcome);
  if (outcome !== undefined) metrics?.job(outcome);
}
