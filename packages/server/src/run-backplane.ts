/**
 * Where the server's runs live and execute. The local backplane is {@link RunManager} (a runs directory, runs
 * executed in this process); {@link createSharedStoreBackplane} is a shared run store (`RunCatalog`, e.g. PostgreSQL)
 * plus a run queue whose workers execute the runs: the server only reads the store, enqueues, answers and cancels.
 */
import type { Answer, Checkpoint, JsonValue, Question, RunCatalog, RunStore } from '@attractor/engine';
import type { Graph } from '@attractor/graph';
import type { SSEStreamingApi } from 'hono/streaming';
import type { PendingQuestion } from './http-interviewer.js';
import type { RunDetails, RunSummary } from './run-summary.js';
import type { StageDirectory, StageDirectoryFileName } from './stage-directory-files.js';

/** A run as the run queue reports it (structurally `@attractor/worker`'s `QueuedRun`). */
export interface BackplaneQueuedRun {
  readonly runId: string;
  readonly request: {
    readonly source: string;
    readonly filename?: string;
    readonly options?: Readonly<Record<string, JsonValue>>;
  };
  readonly state: 'queued' | 'running' | 'waiting' | 'success' | 'fail' | 'cancelled';
  /** When it was enqueued (ISO-8601). */
  readonly enqueuedAt: string;
  /** The question of the gate it waits at (state `waiting`). */
  readonly question?: Question;
  /** When that question was first asked (ISO-8601). */
  readonly askedAt?: string;
  /** Why it failed outside the pipeline (e.g. the graph no longer parses). */
  readonly error?: string;
}

/**
 * The run queue a shared-store server uses: structurally the `RunQueue` of `@attractor/worker` (`connectRunQueue`),
 * so this package does not depend on the queue engine.
 */
export interface BackplaneRunQueue {
  /** Queues a new run (a worker executes it); resolves with its id. */
  enqueueRun(options: {
    readonly source: string;
    readonly filename?: string;
    readonly graphName?: string;
    readonly context?: Readonly<Record<string, JsonValue>>;
    readonly options?: Readonly<Record<string, JsonValue>>;
    readonly fork?: { readonly runId: string; readonly at: string };
  }): Promise<string>;
  /** What the queue knows about a run, or undefined. */
  readRun(runId: string): Promise<BackplaneQueuedRun | undefined>;
  /** Runs the queue knows, newest first. */
  listRuns(filter?: {
    readonly state?: BackplaneQueuedRun['state'];
    readonly limit?: number;
  }): Promise<BackplaneQueuedRun[]>;
  /** Answers the gate a suspended run waits at and queues it again. Rejects with `reason` when refused. */
  answerRun(options: { readonly runId: string; readonly text: string }): Promise<{ readonly answer: Answer }>;
  /** Cancels a run wherever it executes (the worker is told by a notification). */
  cancelRun(options: { readonly runId: string; readonly reason?: string }): Promise<unknown>;
  /** Queues a failed or cancelled run again, from its checkpoint. */
  resumeRun(options: { readonly runId: string }): Promise<unknown>;
  /**
   * Forgets a run that ended (its row); a run still queued, running or waiting is kept. Without it, `DELETE
   * /pipelines/{id}` removes the run from the store only.
   */
  removeRun?(options: { readonly runId: string }): Promise<{ readonly removed: boolean }>;
  /** Closes the queue's connections. */
  /** Runs by state (`RunQueue.countRuns`): the server's runs gauge and its readiness probe of the queue. */
  countRuns?(): Promise<Readonly<Record<string, number>>>;
  close(): Promise<void>;
}

/** A shared run store and its queue, as `startServer({ shared })` takes them. */
export interface SharedRunStore {
  /** The run store every worker writes to (`createPostgresRunCatalog`, or a file catalog on a shared volume). */
  readonly catalog: RunCatalog;
  /** The queue the workers take runs from. */
  readonly queue: BackplaneRunQueue;
  /**
   * Wakes SSE streams when a run's events may have grown (e.g. `LISTEN` on the store's event notifications):
   * `subscribe(listener)` calls `listener(runId)` and returns the unsubscribe function. Without it streams poll
   * every `pollMs`.
   */
  readonly subscribe?: (listener: (runId: string) => void) => () => void;
  /** Poll period of event streams and the runs list when no notification comes, in milliseconds. Default: 500. */
  readonly pollMs?: number;
  /**
   * The workspace mode enqueued runs ask the workers for (`git`, `copy`, `in-place`, `auto`; README "Workspaces").
   * Default: none (each worker's own, or the graph's `workspace` attribute).
   */
  readonly workspaceMode?: string;
}

/** What a run route of the API asks of the runs' backplane (the operations of spec §9.5). */
export interface RunBackplane {
  /** The runs, newest first. */
  list(): Promise<RunSummary[]>;
  /** Starts (or enqueues) a run from DOT source. */
  start(request: {
    readonly source: string;
    readonly filename?: string;
    readonly simulate?: boolean;
    readonly model?: string;
    readonly provider?: string;
    readonly context?: Readonly<Record<string, JsonValue>>;
    /** The pipeline's inputs (README "Typed data"). @throws {ApiError} `INVALID_INPUTS` (400) when they do not match. */
    readonly inputs?: Readonly<Record<string, JsonValue>>;
  }): Promise<RunSummary>;
  /**
   * One run's details, or with `child` (`checks/child`, see `parseChildRunPath`) those of that child run inside it.
   * @throws {ApiError} 404 for an unknown run or child; 400 for a `child` that is not a child run path.
   */
  details(runId: string, child?: string): Promise<RunDetails>;
  /**
   * The graph of a run (or of its child run `child`), for `GET /pipelines/{id}/graph`.
   * @throws {ApiError} 404 when it is not known here.
   */
  graph(runId: string, child?: string): Promise<Graph>;
  /**
   * Streams a run's (or its child run's) events after `lastEventId` (their `seq`), then live ones until it ends;
   * with `follow` false, only the events written so far. Either way the stream closes with an `end` event holding the
   * run's state. Callers check the run with {@link RunBackplane.details} first.
   */
  streamEvents(
    stream: SSEStreamingApi,
    runId: string,
    lastEventId: number,
    child?: string,
    follow?: boolean,
  ): Promise<void>;
  /** Streams `run` messages (summaries) whenever a run changes. */
  streamChanges(stream: SSEStreamingApi): Promise<void>;
  /** Cancels a run wherever it executes. */
  cancel(runId: string): Promise<RunSummary>;
  /**
   * Removes a run that ended from the store and the queue (`DELETE /pipelines/{id}`).
   * @throws {ApiError} `RUN_NOT_FOUND` (404); `RUN_ACTIVE` (409) while it is queued, runs or waits.
   */
  remove(runId: string): Promise<void>;
  /**
   * Archives a run that ended (`archived` true) or unarchives it (`POST /pipelines/{id}/archive`, `/unarchive`):
   * the mark is stored with the run; the run keeps everything else. Answers with its summary.
   * @throws {ApiError} `RUN_NOT_FOUND` (404); `RUN_ACTIVE` (409) when archiving a run that is queued, runs or waits.
   */
  setArchived(runId: string, archived: boolean): Promise<RunSummary>;
  /**
   * The store of a run the store or the queue knows (the diff routes read its checkpoint and stage files).
   * @throws {ApiError} 404 for an unknown run.
   */
  openStore(runId: string): Promise<RunStore>;
  /** Resumes a failed, cancelled or interrupted run from its checkpoint; an archived run is unarchived (it goes on). */
  resume(runId: string): Promise<RunSummary>;
  /**
   * Starts a new run from the checkpoint after stage `from` of `runId` (any run of the store; the source run is only
   * read), optionally with edited DOT, and simulated LLM stages with `simulate: true` (default: as the source run).
   * A run the queue never saw forks from the DOT file its manifest names, while it still holds the graph the run ran.
   * @throws {ApiError} 404 for an unknown run; `FORK_REFUSED` (409) when the run's DOT is not known and none is sent;
   *   `SOURCE_CHANGED` (409) when its DOT file was edited since the run and none is sent.
   */
  fork(
    runId: string,
    options: {
      readonly from: string;
      readonly dot?: string;
      readonly simulate?: boolean;
      /** Values set over the checkpoint's context (the worker routes the stage again with them). */
      readonly context?: Readonly<Record<string, JsonValue>>;
    },
  ): Promise<RunSummary>;
  /** The questions a run waits on. */
  questions(runId: string): Promise<PendingQuestion[]>;
  /** Answers a question of a run. */
  answer(runId: string, questionId: string, text: string): Promise<{ readonly answer: Answer }>;
  /** A run's (or its child run's) last checkpoint, when it has one. @throws {ApiError} as `details`. */
  checkpoint(runId: string, child?: string): Promise<Checkpoint | undefined>;
  /**
   * Every checkpoint of a run (or of its child run), oldest first, unmasked (the route masks them).
   * @throws {ApiError} 404 for an unknown run or child, 400 for a bad child path.
   */
  checkpointHistory(runId: string, child?: string): Promise<Checkpoint[]>;
  /**
   * One stage directory of a run or of its child run `child` (`dir` as `GET /pipelines/{id}/stage` takes it) with its
   * files and earlier visits.
   * @throws {ApiError} 404 for an unknown run or child or a stage that has written nothing.
   */
  stageDirectory(runId: string, dir: string, child?: string): Promise<StageDirectory>;
  /**
   * The unmasked text of stage file `name` in `dir` of a run or of its child run `child` (the route masks it).
   * @throws {ApiError} 404 for an unknown run or child or a file the stage has not written.
   */
  stageFile(runId: string, dir: string, name: StageDirectoryFileName, child?: string): Promise<string>;
  /**
   * The unmasked DOT source of a run, when known (the route masks it): the queue's, else the DOT file the run's
   * manifest names while it still holds the run's graph.
   * @throws {ApiError} 404 for an unknown run, or a DOT file not named, gone or unreadable; `SOURCE_CHANGED` (409)
   *   for one edited since the run.
   */
  source(runId: string): Promise<string | undefined>;
  /** Ends streams and closes connections. */
  close(): Promise<void>;
}
