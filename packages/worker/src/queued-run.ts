/**
 * What the queue keeps about a run besides its jobs: the request it was enqueued with (so any worker can start or
 * resume it), where it stands, and the human gate it waits at (question, deadline, answers). The run itself (its
 * checkpoints, events and files) lives in the run store.
 */
import type { Answer, JsonValue, Question } from '@attractor/engine';

/** What `enqueueRun` was asked to run; any worker builds the run from it. */
export interface RunRequest {
  /** The pipeline's DOT source. */
  readonly source: string;
  /** The DOT file's name, for messages and the manifest (`manifest.source_path`). */
  readonly filename?: string;
  /** Initial context values (JSON); for a `fork`, the values set over the source checkpoint's context. */
  readonly context?: Readonly<Record<string, JsonValue>>;
  /**
   * Options for the worker's `prepare` (e.g. the CLI's backend choice: `simulate`, `model`). Opaque to the queue;
   * never put a secret here: it is stored in the database.
   */
  readonly options?: Readonly<Record<string, JsonValue>>;
  /**
   * Start as a fork of another run of the same store: from the checkpoint after stage `at` (`node` or `node@visit`)
   * of run `runId`, which is only read (engine `startForkedPipeline`).
   */
  readonly fork?: { readonly runId: string; readonly at: string };
  /**
   * The W3C Trace Context headers (`traceparent`, `tracestate`) of the trace the run belongs to, set by `enqueueRun`
   * from its span or the active context: every worker that executes the run (a start, a resume after a gate or a
   * dead worker) continues that trace, so one run's trace spans machines. Absent when nothing was traced.
   */
  readonly trace?: Readonly<Record<string, string>>;
}

/**
 * Where a queued run stands: `queued` (a job waits for a worker), `running` (a worker executes it), `waiting` (suspended
 * at a human gate, held by no worker), or how it ended.
 */
export type QueuedRunState = 'queued' | 'running' | 'waiting' | 'success' | 'fail' | 'cancelled';

/** One run as the queue knows it. */
export interface QueuedRun {
  readonly runId: string;
  readonly request: RunRequest;
  readonly state: QueuedRunState;
  /** When it was enqueued (ISO-8601). */
  readonly enqueuedAt: string;
  /** When a worker first started it (ISO-8601). */
  readonly startedAt?: string;
  /** When it ended (ISO-8601). */
  readonly endedAt?: string;
  /** The worker that executed it last (`host:pid:suffix`). */
  readonly worker?: string;
  /** The question of the gate it waits at (state `waiting`), or last waited at. */
  readonly question?: Question;
  /** The worker that asked that question. */
  readonly askedBy?: string;
  /** When the question was first asked (ISO-8601). */
  readonly askedAt?: string;
  /** When the question times out (ISO-8601): `human.default_choice` (or RETRY) applies then, even across restarts. */
  readonly deadlineAt?: string;
  /** Answers given so far, by question id. */
  readonly answers: Readonly<Record<string, Answer>>;
  /** Why it failed outside the pipeline (e.g. the graph no longer parses), when it did. */
  readonly error?: string;
  /**
   * How many times the process executing it died (killed, out of memory) since it was enqueued or last resumed;
   * absent when never. A worker ends the run once this reaches its `maxExecutorCrashes`.
   */
  readonly crashes?: number;
  /**
   * When its job went to the dead letter queue (ISO-8601): it failed more times than the queue's retry limit allows
   * (`error` says why). Cleared when the run is queued again (`resumeRun`, `attractor retry-dead`).
   */
  readonly deadAt?: string;
}

/** One run as {@link RunQueue.listRunStates} lists it: where it stands, without its request. */
export interface QueuedRunSummary {
  readonly runId: string;
  readonly state: QueuedRunState;
  /** The name of the graph (`digraph <name>` of the request's source); empty when it has none. */
  readonly graphName: string;
  /** ISO-8601. */
  readonly enqueuedAt: string;
  readonly startedAt?: string;
  readonly endedAt?: string;
  readonly worker?: string;
  /** The stage of the gate it waits at (state `waiting`). */
  readonly waitingAt?: string;
  readonly error?: string;
  /** See {@link QueuedRun.deadAt}. */
  readonly deadAt?: string;
}
