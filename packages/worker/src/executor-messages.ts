/**
 * The messages between a worker and the executor process of one run (IPC, structured clone): the worker starts the
 * executor with the run's job, answers its calls to the run queue (the executor holds no queue connection), and
 * forwards cancels, drains and stops; the executor reports what the worker logs, the process groups its guard must
 * end if the executor dies, the stage it is in, and how the job ended. Internal to the worker.
 */
import type { JsonValue } from '@attractor/engine';
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
  | { readonly type: 'process-groups'; readonly key: string; readonly ids: readonly number[] }
  | { readonly type: 'stage'; readonly nodeId: string }
  | { readonly type: 'done'; readonly error?: string };
