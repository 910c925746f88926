/**
 * The executor side of crash containment: a process the worker starts for one run job (its `RunExecutorCommand`)
 * calls {@link serveRunExecutor}, which executes the job the worker sends over IPC and exits. Whatever the run does
 * to this process (a stage's `kill -9 $PPID`, running it out of memory) ends this process only: the worker, its
 * other runs and their jobs live on, and the worker counts the crash against this run alone.
 */
import { type Clock, type JsonValue, systemClock } from '@attractor/engine';
import { createActiveRuns } from './active-runs.js';
import type { WorkerRunCatalog } from './catalog-run-stores.js';
import { executeRunJob, type PrepareRun, type RunJobQueue } from './execute-run-job.js';
import type { ExecutorQueueMethod, FromExecutorMessage, ToExecutorMessage } from './executor-messages.js';

/** What an executor process executes a run with, opened from the worker's `settings`. */
export interface RunExecutorServices {
  /** The shared run store (its own connection: executors share nothing with the worker). */
  readonly catalog: WorkerRunCatalog;
  /** Builds the run's graph, handlers and backend (the worker's policy applies here). */
  readonly prepare: PrepareRun;
  /** Where masked context secrets are read from (`DEPLOY_TOKEN`): the executor's environment. Default: none. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** Closes what `open` opened. */
  readonly close?: () => Promise<void>;
}

/** Options of {@link serveRunExecutor}. */
export interface ServeRunExecutorOptions {
  /** Opens the services from the `settings` of the worker's `RunExecutorCommand`. */
  readonly open: (settings: JsonValue | undefined) => Promise<RunExecutorServices>;
  /** Time source. Default: the system clock. */
  readonly clock?: Clock;
}

/**
 * Executes the one run job the worker that started this process sends, then resolves (the caller exits). When the
 * worker goes away (its IPC channel closes: it was killed), this process kills itself at once, as it would have died
 * with an in-process run; the worker's guard ends its stage commands.
 *
 * @example
 * // executor.js, started by startWorker({ executor: { command: process.execPath, args: ['executor.js'] } })
 * await serveRunExecutor({ open: async () => ({ catalog, prepare }) });
 * process.exit(0);
 * @throws {Error} when this process was not started by a worker (no IPC channel).
 */
export async function serveRunExecutor(options: ServeRunExecutorOptions): Promise<void> {
  const send = process.send?.bind(process);
  if (send === undefined) {
    throw new Error(
      'serveRunExecutor: this process was not started by an Attractor worker (no IPC channel).',
    );
  }
  const post = (message: FromExecutorMessage) =>
    new Promise<void>((resolve) => {
      send(message, undefined, undefined, () => resolve());
    });
  /** The process groups of the stage commands running now: the worker's guard learns them a moment later. */
  const groups = new Map<string, readonly number[]>();
  // The worker died: end the stage commands (its guard may not know the newest yet) and this process now, writing
  // nothing more (another worker resumes the run from its last checkpoint).
  process.on('disconnect', () => {
    for (const id of [...groups.values()].flat()) {
      try {
        process.kill(-id, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    process.kill(process.pid, 'SIGKILL');
  });

  const calls = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextCall = 0;
  const call = (method: ExecutorQueueMethod, args: readonly unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextCall++;
      calls.set(id, { resolve, reject });
      void post({ type: 'call', id, method, args });
    });
  const queue: RunJobQueue = {
    readRun: (...args) => call('readRun', args) as ReturnType<RunJobQueue['readRun']>,
    claimRun: (...args) => call('claimRun', args) as ReturnType<RunJobQueue['claimRun']>,
    settleRun: (...args) => call('settleRun', args) as ReturnType<RunJobQueue['settleRun']>,
    sendJob: (...args) => call('sendJob', args) as ReturnType<RunJobQueue['sendJob']>,
    suspendAtGate: (...args) => call('suspendAtGate', args) as ReturnType<RunJobQueue['suspendAtGate']>,
  };
  // A stop or drain that arrives before the run is under way applies once it is.
  const active = createActiveRuns();
  const jobAborted = new AbortController();
  const start = await new Promise<Extract<ToExecutorMessage, { type: 'start' }>>((resolve) => {
    process.on('message', (message: ToExecutorMessage) => {
      switch (message.type) {
        case 'start':
          resolve(message);
          return;
        case 'reply': {
          const pending = calls.get(message.id);
          calls.delete(message.id);
          if ('error' in message) pending?.reject(new Error(message.error));
          else pending?.resolve(message.value);
          return;
        }
        case 'stop':
          active.stopAll(message.cause, message.reason);
          return;
        case 'drain':
          active.drainAll(message.reason);
          return;
        case 'job-aborted':
          jobAborted.abort(new Error('the job is no longer held by this worker'));
          return;
      }
    });
  });
  let error: string | undefined;
  let services: RunExecutorServices | undefined;
  try {
    services = await options.open(start.settings);
    await executeRunJob({
      job: { id: start.job.id, data: start.job.data, signal: jobAborted.signal },
      queue,
      catalog: services.catalog,
      prepare: services.prepare,
      workdirRoot: start.workdirRoot,
      runsRoot: start.runsRoot,
      onProcessGroups: (key, ids) => {
        if (ids.length === 0) groups.delete(key);
        else groups.set(key, ids);
        void post({ type: 'process-groups', key, ids: [...ids] });
      },
      onStage: (nodeId) => void post({ type: 'stage', nodeId }),
      workerId: start.workerId,
      clock: options.clock ?? systemClock,
      emit: (event) => void post({ type: 'event', event }),
      active,
      ...(services.environment === undefined ? {} : { environment: services.environment }),
    });
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    await services?.close?.().catch(() => undefined);
  }
  await post({ type: 'done', ...(error === undefined ? {} : { error }) });
  process.removeAllListeners('disconnect');
  process.disconnect();
}
