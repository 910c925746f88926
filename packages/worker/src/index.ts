/**
 * `@attractor/worker`: Attractor runs on several machines. `connectRunQueue` enqueues runs, answers human gates and
 * cancels runs; `startWorker` takes runs from the queue (pg-boss on PostgreSQL) and executes them against a shared
 * run store. See README.md.
 */
export type { CatalogRunStoresOptions, WorkerRunCatalog } from './catalog-run-stores.js';
export { catalogRunStores } from './catalog-run-stores.js';
export { AnswerRefusedError } from './errors/answer-refused-error.js';
export { QueueUnavailableError } from './errors/queue-unavailable-error.js';
export { RunRefusedError } from './errors/run-refused-error.js';
export { SecretInRequestError } from './errors/secret-in-request-error.js';
export type { PreparedRun, PrepareRun } from './execute-run-job.js';
export type { ResolvedSecretContext } from './mask-run-request.js';
export { maskRunRequest, resolveSecretContext, secretVariableName } from './mask-run-request.js';
export type { AnswerMatch } from './match-answer.js';
export { matchAnswer } from './match-answer.js';
export type { ProcessGroupGuard } from './process-group-guard.js';
export { startProcessGroupGuard } from './process-group-guard.js';
export { describeQueueLocation, QUEUE_SETTING } from './queue-location.js';
export { CANCEL_CHANNEL, DEAD_RUN_QUEUE_NAME, QUEUE_SCHEMA, RUN_QUEUE_NAME } from './queue-tables.js';
export type { QueuedRun, QueuedRunState, RunRequest } from './queued-run.js';
export type { RunExecutorCommand } from './run-in-executor.js';
export type {
  ConnectRunQueueOptions,
  EnqueueRunOptions,
  RunJobData,
  RunJobTrigger,
  RunQueue,
  RunQueueJobOptions,
  RunSignatureCheck,
} from './run-queue.js';
export { connectRunQueue } from './run-queue.js';
export type { RunExecutorServices, ServeRunExecutorOptions } from './serve-run-executor.js';
export { serveRunExecutor } from './serve-run-executor.js';
export { MIN_QUEUE_KEY_LENGTH, signRunRequest, verifyRunRequest } from './sign-run-request.js';
export type { RunningWorker, StartWorkerOptions, WorkerEvent, WorkerService } from './start-worker.js';
export { startWorker } from './start-worker.js';
