/**
 * The span of one run job on a worker (`process attractor-runs`, kind CONSUMER): a child of the trace the run was
 * enqueued in (`RunRequest.trace`), the parent of the engine's run span, ending with what became of the job.
 */
import {
  SpanKind,
  SpanStatusCode,
  type Context as TraceContext,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { RunJob } from './execute-run-job.js';
import { RUN_QUEUE_SPAN_ATTRIBUTES, storedTraceContext } from './run-trace-context.js';
import type { WorkerEvent } from './start-worker.js';

/** What became of a run job: the run's end status, or `suspended`, `requeued`, `skipped`. */
export type RunJobOutcome = 'success' | 'fail' | 'cancelled' | 'suspended' | 'requeued' | 'skipped';

/** The outcome a worker event of the job's run reports, if it reports one. */
export function jobOutcomeOf(event: WorkerEvent): RunJobOutcome | undefined {
  switch (event.type) {
    case 'run.finished':
      return event.status === 'success' || event.status === 'fail' ? event.status : 'cancelled';
    case 'run.suspended':
      return 'suspended';
    case 'run.requeued':
      return 'requeued';
    case 'run.skipped':
      return 'skipped';
    default:
      return undefined;
  }
}

/** The span of one run job. */
export interface RunJobSpan {
  /** The context holding the span: the engine's run span goes under it. */
  readonly context: TraceContext;
  /** Ends the span with the job's outcome, or with the fault that made the job fail (pg-boss retries it). */
  end(outcome: RunJobOutcome | undefined, fault?: unknown): void;
}

/** Starts the span of `job`, under the trace stored with its run. */
export function startRunJobSpan(options: {
  readonly tracer: Tracer;
  readonly job: RunJob;
  readonly workerId: string;
  readonly trace: Readonly<Record<string, string>> | undefined;
}): RunJobSpan {
  const parent = storedTraceContext(options.trace);
  const span = options.tracer.startSpan(
    `process ${RUN_QUEUE_SPAN_ATTRIBUTES['messaging.destination.name']}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...RUN_QUEUE_SPAN_ATTRIBUTES,
        'messaging.operation.type': 'process',
        'messaging.message.id': options.job.id,
        'attractor.run.id': options.job.data.runId,
        'attractor.job.trigger': options.job.data.trigger,
        'attractor.worker.id': options.workerId,
      },
    },
    parent,
  );
  return {
    context: trace.setSpan(parent, span),
    end(outcome, fault) {
      if (outcome !== undefined) span.setAttribute('attractor.job.outcome', outcome);
      if (fault !== undefined) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: fault instanceof Error ? fault.message : String(fault),
        });
      }
      span.end();
    },
  };
}
