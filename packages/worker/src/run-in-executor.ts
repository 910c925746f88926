/**
 * The worker side of crash containment: each run job executes in a process of its own (the worker's
 * {@link RunExecutorCommand}, which calls `serveRunExecutor`). The worker keeps the pg-boss job (and its heartbeat),
 * answers the executor's queue calls, forwards cancels, drains and stops, and tells the guard which stage commands
 * the executor runs. An executor that dies before reporting the job's end crashed: the worker ends its stage
 * commands and reports the crash (killed by which signal, out of memory, during which stage), so that only that
 * run's count of crashes grows.
 */
import { spawn } from 'node:child_process';
import type { JsonValue } from '@attractor/engine';
import type { ActiveRun, RunJob, RunJobQueue } from './execute-run-job.js';
import type { FromExecutorMessage, ToExecutorMessage } from './executor-messages.js';
import type { WorkerEvent } from './start-worker.js';

/** How a worker starts the executor process of a run: a program that calls `serveRunExecutor`. */
export interface RunExecutorCommand {
  /** The program, e.g. `process.execPath`. */
  readonly command: string;
  /** Its arguments, e.g. `['executor.js']` (a memory limit: `['--max-old-space-size=2048', 'executor.js']`). */
  readonly args: readonly string[];
  /** Its environment. Default: the worker's. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Handed to the executor's `open` (JSON; e.g. the store URL and the worker's policy). */
  readonly settings?: JsonValue;
}

/** How an executor's job ended. */
export type ExecutorOutcome =
  /** The executor reported the job's end (the run ended, suspended, was handed back or skipped). */
  | { readonly kind: 'done' }
  /** The job failed on an infrastructure fault (the store down): pg-boss retries it. */
  | { readonly kind: 'failed'; readonly message: string }
  /** The executor died before reporting: `description` says how (`killed by SIGKILL during stage "deploy"`). */
  | { readonly kind: 'crashed'; readonly description: string };

/** Options of {@link runInExecutor}. Internal to the worker. */
export interface RunInExecutorOptions {
  readonly executor: RunExecutorCommand;
  readonly job: RunJob;
  readonly queue: RunJobQueue;
  readonly workerId: string;
  readonly workdirRoot: string;
  readonly runsRoot: string;
  readonly emit: (event: WorkerEvent) => void;
  /** The guard's record of the stage commands' process groups. */
  readonly onProcessGroups?: (key: string, processGroupIds: readonly number[]) => void;
  /** The runs this worker executes, by run id: the executor's run is there while it lives. */
  readonly active: Map<string, ActiveRun>;
}

/** The tail of an executor's stderr kept to tell an out-of-memory death, in characters. */
const STDERR_TAIL = 4096;
/** How long stage commands get between SIGTERM and SIGKILL once their executor crashed, in milliseconds. */
const GROUP_KILL_GRACE_MS = 1000;
/** How long an executor that reported its job's end may take to exit before it is killed, in milliseconds. */
const EXIT_GRACE_MS = 10_000;
/** How much of a crashed executor's stderr goes to the worker's log (never to the run's records), in characters. */
const LOGGED_STDERR = 1000;

/** Executes one run job in a new executor process. Never rejects: a fault of the executor is its outcome. */
export function runInExecutor(options: RunInExecutorOptions): Promise<ExecutorOutcome> {
  const { job, queue } = options;
  const { runId } = job.data;
  const child = spawn(options.executor.command, [...options.executor.args], {
    // Its own process group: a Ctrl-C at the worker's terminal reaches the worker, which decides (drain), not the run.
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
    ...(options.executor.env === undefined ? {} : { env: options.executor.env }),
  });
  let stderrTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL);
  });
  const post = (message: ToExecutorMessage) => {
    if (child.connected) child.send(message, (error) => error && undefined);
  };
  /** The process groups the executor's stages run, by run directory. */
  const groups = new Map<string, readonly number[]>();
  let stage: string | undefined;
  let reported: { readonly error?: string } | undefined;

  options.active.set(runId, {
    stop(cause, reason) {
      post({ type: 'stop', cause, reason });
    },
    drain(reason) {
      post({ type: 'drain', reason });
    },
  });
  const onJobAborted = () => post({ type: 'job-aborted' });
  job.signal.addEventListener('abort', onJobAborted, { once: true });

  child.on('message', (message: FromExecutorMessage) => {
    switch (message.type) {
      case 'call': {
        const method = queue[message.method] as (...args: unknown[]) => Promise<unknown>;
        method.apply(queue, [...message.args]).then(
          (value) => post({ type: 'reply', id: message.id, value }),
          (error: unknown) =>
            post({
              type: 'reply',
              id: message.id,
              error: error instanceof Error ? error.message : String(error),
            }),
        );
        return;
      }
      case 'event':
        options.emit(message.event);
        return;
      case 'process-groups':
        if (message.ids.length === 0) groups.delete(message.key);
        else groups.set(message.key, message.ids);
        options.onProcessGroups?.(`${message.key}`, message.ids);
        return;
      case 'stage':
        stage = message.nodeId;
        return;
      case 'done':
        reported = message.error === undefined ? {} : { error: message.error };
        // Something it left open (a plug-in's timer) must not hold the job: it has nothing more to do.
        setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS).unref();
        return;
    }
  });

  return new Promise<ExecutorOutcome>((resolve) => {
    let started = false;
    child.once('spawn', () => {
      started = true;
      post({
        type: 'start',
        job: { id: job.id, data: job.data },
        workerId: options.workerId,
        workdirRoot: options.workdirRoot,
        runsRoot: options.runsRoot,
        settings: options.executor.settings,
      });
    });
    const finish = (outcome: ExecutorOutcome) => {
      job.signal.removeEventListener('abort', onJobAborted);
      options.active.delete(runId);
      resolve(outcome);
    };
    child.once('error', (error) => {
      if (started) return;
      finish({ kind: 'failed', message: `the run's executor could not start: ${error.message}` });
    });
    child.once('close', (code, signal) => {
      if (reported !== undefined) {
        finish(reported.error === undefined ? { kind: 'done' } : { kind: 'failed', message: reported.error });
        return;
      }
      // Its stage commands run in process groups of their own: end them, as the guard would for a dead worker.
      const orphans = [...groups.values()].flat();
      for (const key of groups.keys()) options.onProcessGroups?.(key, []);
      endProcessGroups(orphans);
      const printed = stderrTail.trim().slice(-LOGGED_STDERR);
      if (printed !== '') {
        options.emit({
          type: 'warning',
          runId,
          message: `its executor process printed before it ended: ${printed}`,
        });
      }
      finish({
        kind: 'crashed',
        description: describeCrash({ code, signal, stderr: stderrTail, stage }),
      });
    });
  });
}

/** SIGTERM to each process group, SIGKILL a second later to those still there. */
function endProcessGroups(ids: readonly number[]): void {
  if (ids.length === 0) return;
  const signal = (name: NodeJS.Signals) => {
    for (const id of ids) {
      try {
        process.kill(-id, name);
      } catch {
        // Already gone.
      }
    }
  };
  signal('SIGTERM');
  setTimeout(() => signal('SIGKILL'), GROUP_KILL_GRACE_MS).unref();
}

/** `killed by SIGKILL during stage "deploy"`, `ran out of memory before its first stage`, `exited with code 3 ...`. */
function describeCrash(options: {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly stage: string | undefined;
}): string {
  const outOfMemory = /heap out of memory|Reached heap limit|Allocation failed/i.test(options.stderr);
  const how = outOfMemory
    ? 'ran out of memory'
    : options.signal !== null
      ? `was killed by ${options.signal}`
      : `exited with code ${options.code ?? 'unknown'} without finishing`;
  const where = options.stage === undefined ? 'before its first stage' : `during stage "${options.stage}"`;
  return `the run's executor process ${how} ${where}`;
}
