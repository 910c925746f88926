/**
 * The messages between a worker and the executor process of one run (IPC, structured clone): the worker starts the
 * executor with the run's job, answers its calls to the run queue (the executor holds no queue connection), and
 * forwards cancels, drains and stops; the executor reports what the worker logs, the process groups its guard must
 * end if the executor dies, the stage it is in, and how the job ended. Internal to the worker.
 */
import type { JsonValue, PipelineEvent } from '@attractor/engine';
import type { RunJobQueue, StopCause } from './execute-run-job.js';
import type { RunJobData } from './run-queue.js';
import type { WorkerEvent } from './start-worker.js';

/** The queue methods an executor calls through its worker. */
export type ExecutorQueueMethod = keyof RunJobQueue;

/** From the worker to an executor. */
export type ToExecutorMessage =
  | {
      readonly type: 'start';
      readonly job: { readonly id: string; readonly data: RunJobData };
      readonly workerId: string;
      readonly workdirRoot: string;
      readonly runsRoot: string;
      /** The `settings` of the worker's `RunExecutorCommand`, for the executor's `open`. */
      readonly settings: JsonValue | undefined;
      /** The W3C Trace Context of the job's span: the parent of the run's spans in the executor. */
      readonly trace?: Readonly<Record<string, string>>;
    }
  | { readonly type: 'stop'; readonly cause: StopCause; readonly reason: string }
  | { readonly type: 'drain'; readonly reason: string }
  | { readonly type: 'job-aborted' }
  | { readonly type: 'reply'; readonly id: number; readonly value: unknown }
  | { readonly type: 'reply'; readonly id: number; readonly error: string };

/** From an executor to its worker. */
export type FromExecutorMessage =
  | {
      readonly type: 'call';
      readonly id: number;
      readonly method: ExecutorQueueMethod;
      readonly args: readonly unknown[];
    }
  | { readonly type: 'event'; readonly event: WorkerEvent }
  /** An event of the run that the worker's log and metrics use (see {@link FORWARDED_RUN_EVENTS}). */
  | { readonly type: 'run-event'; readonly event: PipelineEvent }
  | { readonly type: 'process-groups'; readonly key: string; readonly ids: readonly number[] }
  | { readonly type: 'stage'; readonly nodeId: string }
  | { readonly type: 'done'; readonly error?: string };

/**
 * The run events an executor forwards to its worker (for the worker's log and run metrics): the runs' and stages'
 * starts and ends, retries, gates, LLM usage and stage logs; not the streamed text and tool calls.
 */
export const FORWARDED_RUN_EVENTS: ReadonlySet<PipelineEvent['type']> = new Set([
  'pipeline.started',
  'pipeline.completed',
  'pipeline.failed',
  'pipeline.cancelled',
  'pipeline.suspended',
  'pipeline.restarted',
  'stage.started',
  'stage.completed',
  'stage.failed',
  'stage.retrying',
  'stage.log',
  'interview.started',
  'agent.usage',
]);
