/**
 * The runs of one server (spec §9.5): starts pipelines from DOT text or files, gives each its own run directory,
 * context and interviewer, keeps their events for SSE clients, cancels them on request or when the server stops,
 * and reads past runs back from the runs directory so they can be listed and resumed.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  CheckpointCorruptError,
  type Clock,
  type CodergenBackend,
  type CommandSandbox,
  createFileRunCatalog,
  createFileRunStore,
  createSecretMasker,
  defaultLogsRoot,
  type HandlerRegistry,
  type JsonValue,
  type PipelineEvent,
  type PipelineRun,
  type PipelineTelemetry,
  ResumeError,
  type RunResult,
  readRun,
  readTextFileSync,
  type SecretMasker,
  startForkedPipeline,
  startPipeline,
  startResumedPipeline,
  type WorkspaceProvider,
} from '@attractor/engine';
import { type Graph, prepareGraph } from '@attractor/graph';
import { checkRunInputs } from './check-run-inputs.js';
import { checkWholeNumberOption } from './check-whole-number-option.js';
import { readCheckpointSafely, readChildRunDetails } from './child-run-details.js';
import { type ChildRunDirectory, resolveChildRunDirectory } from './child-run-directory.js';
import { childRunKey } from './child-run-path.js';
import { ApiError } from './errors/api-error.js';
import { createHttpInterviewer, type HttpInterviewer } from './http-interviewer.js';
import { readPipelineFile, resolvePipelineFile } from './pipeline-files.js';
import { DEFAULT_PIPELINE_LIMITS, type PipelineLimits } from './pipeline-limits.js';
import { createPipelineValidator, type PipelineValidator } from './pipeline-validator.js';
import type { NodeDisplayStatus } from './render-run-graph.js';
import { runActiveError } from './run-active-error.js';
import { isRunArchived, writeRunArchived } from './run-archive-file.js';
import {
  createUniqueRunDirectory,
  hasRunRequest,
  listRunDirectories,
  RUN_SOURCE_FILE,
  type RunRequestRecord,
  readFinalEvent,
  readRunRequest,
  removeRunDirectory,
  resolveRunDirectory,
  writeRunRequest,
} from './run-directory-files.js';
import { readChildRunGraph, readForkSourceFile, readRunSourceFile } from './run-source-file.js';
import {
  inheritedStageStatuses,
  pastRunSummary,
  type RunDetails,
  type RunState,
  type RunSummary,
  stageStatusesFromEvents,
  statusesFromOutcomes,
  waitingQuestionOf,
} from './run-summary.js';
import { addEventToTotals, createRunTotals, type RunTotals, totalsSummaryFields } from './run-totals.js';
import { readStoredStageListing } from './stage-directory-files.js';

/** What a {@link BackendFactory} is asked for: the backend of one run. */
export interface BackendRequest {
  readonly graph: Graph;
  readonly runId: string;
  readonly logsRoot: string;
  /** The client asked for the simulation backend (`"simulate": true`). */
  readonly simulate: boolean;
  /** Model override from the request (`"model"`), e.g. `gpt-5.2`. */
  readonly model?: string;
  /** Provider override from the request (`"provider"`), e.g. `openai`. */
  readonly provider?: string;
  /** Whether the server allows shell access; a backend with a shell tool should disable it when false. */
  readonly allowTools: boolean;
}

/** Creates the LLM backend of a run; undefined lets the codergen handler simulate (spec §4.5). */
export type BackendFactory = (
  request: BackendRequest,
) => CodergenBackend | undefined | Promise<CodergenBackend | undefined>;

/** What `POST /pipelines` asks for (already validated). */
export interface StartRunRequest {
  /** DOT source; exactly one of `dot` and `file`. */
  readonly dot?: string;
  /** A `.dot` path relative to the pipelines directory. */
  readonly file?: string;
  readonly simulate?: boolean;
  readonly model?: string;
  readonly provider?: string;
  readonly maxSteps?: number;
  /** Initial context values. */
  readonly context?: Readonly<Record<string, JsonValue>>;
  /** The pipeline's inputs (README "Typed data"), checked against the graph's `inputs` before anything is written. */
  readonly inputs?: Readonly<Record<string, JsonValue>>;
}

/** Options of {@link RunManager}. */
export interface RunManagerOptions {
  /** Where run directories are created and past runs are found. */
  readonly runsDir: string;
  readonly pipelinesDir?: string;
  readonly allowTools: boolean;
  /** A fresh handler registry per run. */
  readonly createRegistry: () => HandlerRegistry;
  readonly backendFactory: BackendFactory;
  /** Working directory of runs (tool cwd, agent file tools). Default: the engine's (`process.cwd()`). */
  readonly workdir?: string;
  /**
   * The runs' workspaces (README "Workspaces"; `createWorkspaceProvider()` of `@attractor/workspace`): a git worktree
   * per run, a commit per stage. Default: none, runs work in `workdir` in place.
   */
  readonly workspace?: WorkspaceProvider;
  readonly clock: Clock;
  /**
   * Secret values masked in everything the runs write and everything the server sends (events, SSE, checkpoint,
   * context, stage files). Token shapes and secret-named keys are masked even without it.
   */
  readonly secretValues?: readonly string[];
  /** Limits on the pipelines clients send (size, nesting, attributes, nodes, validation time). Default: {@link DEFAULT_PIPELINE_LIMITS}. */
  readonly limits?: Partial<PipelineLimits>;
  /** Confines the commands of tool and agent stages (`runPipeline({ sandbox })`). Default: none. */
  readonly sandbox?: CommandSandbox;
  /** The runs' OpenTelemetry spans and metrics (`runPipeline({ telemetry })`). Default: none. */
  readonly telemetry?: PipelineTelemetry;
  /** Receives every event of the runs (and their child runs), as the engine emits them. Default: none. */
  readonly onRunEvent?: (event: PipelineEvent) => void;
  /**
   * `createRegistry` may give handlers other than the built-in ones (an embedder's): a large pipeline validated in a
   * worker thread is then linted again with their declarations. Default: false.
   */
  readonly customHandlers?: boolean;
  /**
   * How many runs that ended this process keeps in memory (the most recent ones, answered from memory as they were
   * live); an older one leaves memory and is answered from its run directory, as after a restart, so a server's memory
   * returns to idle after a burst (issue 34 §11). A run whose executor faulted stays (its events are only in memory).
   * A whole number of 0 (none: each run leaves memory as it ends) or more. Default: {@link DEFAULT_ENDED_RUNS_KEPT}.
   */
  readonly endedRunsKept?: number;
}

/** Default of {@link RunManagerOptions.endedRunsKept}: the runs that ended kept in memory. */
export const DEFAULT_ENDED_RUNS_KEPT = 32;

/**
 * How many past runs' totals (tokens, cost, end), and summaries of runs that ended here and left memory, are kept, so
 * a runs list does not read every run directory and event log again.
 */
const PAST_RUNS_KEPT = 1024;

/** What {@link RunManager.memoryCounts} reports: the entries the manager holds in memory. */
export interface RunManagerMemoryCounts {
  /** Runs running or waiting in this process. */
  readonly live: number;
  /** Runs that ended and are still kept in memory (at most `endedRunsKept`, plus any whose executor faulted). */
  readonly ended: number;
  /** Past runs whose totals are kept (at most 1,024). */
  readonly pastTotals: number;
  /** Runs that ended here and left memory whose summaries are kept (at most 1,024). */
  readonly pastSummaries: number;
  /** Runs that ended here and left memory, whose state the runs gauge counts (an id and a word each). */
  readonly evicted: number;
}

/** A run executed by this server. */
export interface LiveRun {
  readonly id: string;
  readonly logsRoot: string;
  /** The graph's id and goal, for the run's summary. */
  readonly graphName: string;
  readonly goal: string;
  /** The run's graph while it runs (shared with the runs of the same pipeline); a finished run's is read again. */
  graph: Graph | undefined;
  /**
   * The engine's run while it runs; once it has ended, what is left of it (its last progress and its result), so that
   * a finished run holds none of the engine's state (issue 34 §11: memory returns to idle).
   */
  run: Pick<PipelineRun, 'status' | 'cancel'> & { readonly result: Promise<unknown> };
  readonly interviewer: HttpInterviewer;
  /**
   * The run's own events (not those of child pipelines) seen by this process, in `seq` order, while it runs (emptied
   * when it ends: they are all in its `events.jsonl` then; kept when a fault stopped it).
   */
  readonly events: PipelineEvent[];
  /** Called with every event (and `undefined` once the run ended). */
  readonly subscribers: Set<(event: PipelineEvent | undefined) => void>;
  /**
   * When the run started (ISO-8601): its manifest's `started_at`, read once the run has written it (its first
   * `pipeline.started`), so a live run reports the time a server started later reads from its files; until then, when
   * this process started it.
   */
  startedAt: string;
  /** End, duration, tokens and cost so far, updated with every event. */
  readonly totals: RunTotals;
  /** Child runs that ended, by `childRunKey` (cleared when one starts again). */
  readonly endedChildren: Set<string>;
  /**
   * The events of child runs seen by this process, by `childRunKey`: a child's `events.jsonl` is written in
   * batches, so a page opened while a child waits (at a human gate) reads the rest here.
   */
  readonly childEvents: Map<string, PipelineEvent[]>;
  ended: boolean;
  result?: Pick<RunResult, 'status' | 'failureReason'>;
  /** A fault that made the run reject (infrastructure, not a pipeline failure). */
  fault?: string;
}

/** How long `POST …/cancel` waits for the run to stop before it answers with the run still stopping, in ms. */
const CANCEL_WAIT_MS = 5_000;

/** Event types after which a run's summary (state, current node, questions, totals) may have changed. */
const SUMMARY_EVENTS: ReadonlySet<PipelineEvent['type']> = new Set([
  'pipeline.started',
  'pipeline.completed',
  'pipeline.failed',
  'pipeline.cancelled',
  'stage.started',
  'stage.completed',
  'interview.started',
  'interview.completed',
  'interview.timeout',
  'agent.usage',
  'parallel.completed',
  'foreach.completed',
]);

/** The set of runs of one server. Not thread-safe across processes: one server per runs directory. */
export class RunManager {
  readonly #options: RunManagerOptions;
  readonly #live = new Map<string, LiveRun>();
  readonly #streams = new Set<Promise<void>>();
  /** Runs whose resume is being set up (between the request and the engine's first event). */
  readonly #resuming = new Set<string>();
  /** Listeners of run changes (`GET /events`): called with the id of a run whose summary may have changed. */
  readonly #runListeners = new Set<(runId: string) => void>();
  /** Called once when the server stops (open `GET /events` streams end). */
  readonly #stopListeners = new Set<() => void>();
  /** Totals of past runs that ended, by run directory (they no longer change). */
  readonly #pastTotals = new Map<string, RunTotals>();
  /** Ids of the runs that ended and are still in `#live`, oldest first (see `endedRunsKept`). */
  readonly #endedKept = new Set<string>();
  /**
   * The state of each run this process ran that has left memory (see `endedRunsKept`), for the runs gauge: an id and
   * a word per run, where a kept run holds its interviewer, progress and totals.
   */
  readonly #evicted = new Map<string, RunState>();
  /** The summaries of the runs that left memory most recently (at most {@link PAST_RUNS_KEPT}): they no longer change. */
  readonly #evictedSummaries = new Map<string, RunSummary>();
  #stopping = false;

  /** Masks secrets in every response (docs/architecture.md "Secrets"). */
  readonly secrets: SecretMasker;
  /** The limits in force. */
  readonly limits: PipelineLimits;
  /** Graphs of past runs, parsed once (GET never parses a run twice). Bounded. */
  readonly #graphs = new Map<string, Graph>();

  /** Validates the pipelines clients send, within the limits, one burst at a time (pipeline-validator.ts). */
  readonly validator: PipelineValidator;

  /** @throws {ServerOptionError} when `endedRunsKept` is not a whole number of 0 or more. */
  constructor(options: RunManagerOptions) {
    checkWholeNumberOption({
      option: 'endedRunsKept',
      value: options.endedRunsKept,
      min: 0,
      defaultValue: DEFAULT_ENDED_RUNS_KEPT,
    });
    this.#options = options;
    this.limits = { ...DEFAULT_PIPELINE_LIMITS, ...options.limits };
    this.secrets = createSecretMasker({ values: options.secretValues ?? [] });
    this.validator = createPipelineValidator({
      limits: this.limits,
      allowTools: options.allowTools,
      ...(options.customHandlers === undefined ? {} : { customHandlers: options.customHandlers }),
    });
  }

  /** The runs directory. */
  get runsDir(): string {
    return this.#options.runsDir;
  }

  /** Sleeps `ms` milliseconds on the manager's clock (rejects when `signal` aborts). */
  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> => this.#options.clock.sleep(ms, signal);

  /**
   * Validates and starts a pipeline; returns its summary at once (the run goes on in the background).
   * @throws {ApiError} `INVALID_PIPELINE` (400) with `diagnostics`, `TOOLS_NOT_ALLOWED` (400),
   *   `PIPELINE_FILE_NOT_FOUND`, `SERVER_STOPPING` (503).
   */
  async start(request: StartRunRequest): Promise<RunSummary> {
    this.#refuseWhenStopping();
    const file =
      request.file === undefined ? undefined : readPipelineFile(this.#options.pipelinesDir, request.file);
    const source = file === undefined ? (request.dot ?? '') : file.source;
    const filename = request.file ?? 'pipeline.dot';
    const registry = this.#options.createRegistry();
    const graph = await this.#prepare(
      source,
      { filename, ...(file === undefined ? {} : { path: file.path, fromPipelinesDir: true }) },
      registry,
    );
    // A schema file in `inputs` is relative to the pipeline file (else the pipelines directory).
    const inputsBaseDirectory = file === undefined ? this.#options.pipelinesDir : dirname(file.path);
    const inputs = await checkRunInputs({
      graph,
      ...(request.inputs === undefined ? {} : { inputs: request.inputs }),
      ...(request.context === undefined ? {} : { context: request.context }),
      ...(inputsBaseDirectory === undefined ? {} : { baseDirectory: inputsBaseDirectory }),
    });
    const logsRoot = createUniqueRunDirectory(
      this.#options.runsDir,
      basename(defaultLogsRoot({ graph, nowMs: this.#options.clock.now() })),
    );
    const record: RunRequestRecord = {
      version: 1,
      origin: request.file === undefined ? { kind: 'text' } : { kind: 'file', path: request.file },
      filename,
      simulate: request.simulate ?? false,
      ...(request.model === undefined ? {} : { model: request.model }),
      ...(request.provider === undefined ? {} : { provider: request.provider }),
      ...(request.maxSteps === undefined ? {} : { maxSteps: request.maxSteps }),
    };
    writeRunRequest(logsRoot, source, record);
    let services: Awaited<ReturnType<RunManager['services']>>;
    try {
      services = await this.services(graph, logsRoot, record, registry);
    } catch (error) {
      // Nothing ran: leave no half-made run behind.
      removeRunDirectory(logsRoot);
      throw error;
    }
    const interviewer = services.interviewer;
    const run = startPipeline({
      ...services,
      logsRoot,
      sourcePath: `${logsRoot}/${RUN_SOURCE_FILE}`,
      ...(request.context === undefined ? {} : { context: request.context }),
      inputs,
      ...(inputsBaseDirectory === undefined ? {} : { inputsBaseDirectory }),
    });
    return this.summary(
      this.#track(run, graph, interviewer, new Date(this.#options.clock.now()).toISOString()).id,
    );
  }

  /**
   * Starts a new run from the snapshot after a completed stage of run `id` (the engine's `startForkedPipeline`),
   * with the source run's DOT or an edited one; the source run is not changed. Any run of the runs directory can be
   * forked, also one this server did not start (`attractor run`): its DOT is then the file its manifest names
   * (`source_path`) while it still holds the graph the run ran, its relative references (`graph_ref`,
   * `stack.child_dotfile`) resolve next to that file as in the run (also with an edited `dot`; they are read when
   * their node runs), and its LLM stages run on this server's backend (simulated with `simulate: true`).
   * @param options.from the completed stage, `node` or `node@visit`
   * @param options.dot edited DOT for the fork. Default: the source run's.
   * @param options.simulate simulate the fork's LLM stages. Default: as the source run was started by this server;
   *   false for a run it did not start.
   * @param options.context values set over the checkpoint's context; the stage's outcome is routed again with them.
   *   Default: none.
   * @throws {ApiError} `RUN_NOT_FOUND` (404), `FORK_REFUSED` (409: no such completed stage, the edited graph lacks
   *   it, or the DOT file of a run this server did not start is not named or cannot be read and no `dot` was sent),
   *   `SOURCE_CHANGED` (409: that DOT file was edited since the run and no `dot` was sent), `INVALID_PIPELINE` /
   *   `TOOLS_NOT_ALLOWED` (400) for the fork's DOT, `SERVER_STOPPING` (503).
   */
  async fork(
    id: string,
    options: {
      readonly from: string;
      readonly dot?: string;
      readonly simulate?: boolean;
      readonly context?: Readonly<Record<string, JsonValue>>;
    },
  ): Promise<RunSummary> {
    this.#refuseWhenStopping();
    const sourceRoot = resolveRunDirectory(this.#options.runsDir, id);
    const { dot, record } = await this.#forkRequest(id, sourceRoot, options);
    const registry = this.#options.createRegistry();
    const graph = await this.#prepare(
      dot,
      { filename: record.filename, ...this.#graphFileOf(record) },
      registry,
    );
    const logsRoot = createUniqueRunDirectory(
      this.#options.runsDir,
      basename(defaultLogsRoot({ graph, nowMs: this.#options.clock.now() })),
    );
    writeRunRequest(logsRoot, dot, record);
    let run: PipelineRun;
    let interviewer: HttpInterviewer;
    try {
      const services = await this.services(graph, logsRoot, record, registry);
      interviewer = services.interviewer;
      run = await startForkedPipeline({
        ...services,
        from: sourceRoot,
        at: options.from,
        ...(options.context === undefined ? {} : { context: options.context }),
        logsRoot,
        sourcePath: `${logsRoot}/${RUN_SOURCE_FILE}`,
      });
    } catch (error) {
      // Nothing ran: leave no half-made run behind.
      removeRunDirectory(logsRoot);
      if (ResumeError.isInstance(error) || CheckpointCorruptError.isInstance(error)) {
        throw new ApiError({
          status: 409,
          code: 'FORK_REFUSED',
          message: inRunTerms(error.message, sourceRoot, id),
          cause: error,
        });
      }
      throw error;
    }
    return this.summary(
      this.#track(run, graph, interviewer, new Date(this.#options.clock.now()).toISOString()).id,
    );
  }

  /**
   * The DOT and request record a fork of run `id` starts with: the source run's saved request (a run of this
   * server), else a new record for the DOT file its manifest names (a run of `attractor run`), read only while it
   * still holds the graph the run ran (`readForkSourceFile`); `options.dot` and `options.simulate` override them.
   * @throws {ApiError} for a run this server did not start, when no `dot` was sent: `FORK_REFUSED` (409) when its
   *   DOT file is not named or cannot be read, `SOURCE_CHANGED` (409) when it was edited since the run.
   */
  async #forkRequest(
    id: string,
    sourceRoot: string,
    options: { readonly dot?: string; readonly simulate?: boolean },
  ): Promise<{ dot: string; record: RunRequestRecord }> {
    const simulate = options.simulate === undefined ? {} : { simulate: options.simulate };
    if (hasRunRequest(sourceRoot)) {
      // A run of this server: its records must be readable (RESUME_REFUSED is about those files, not about resuming).
      let saved: ReturnType<typeof readRunRequest>;
      try {
        saved = readRunRequest(sourceRoot);
      } catch (error) {
        if (!ApiError.isInstance(error) || error.status !== 409) throw error;
        throw new ApiError({ status: 409, code: 'FORK_REFUSED', message: error.message, cause: error });
      }
      return { dot: options.dot ?? saved.source, record: { ...saved.record, ...simulate } };
    }
    // Started elsewhere (`attractor run`): forking only reads it, so it needs nothing of this server but its DOT.
    const store = createFileRunStore({ logsRoot: sourceRoot, createDirectory: false });
    const path = (await store.readManifest())?.source_path;
    // An edited DOT file is not the graph the run ran: only the request's `dot` forks with another graph.
    const dot = options.dot ?? (await readForkSourceFile({ runId: id, store }));
    // Kept like DOT text sent by a client (the file's name in diagnostics), but its relative references (graph_ref)
    // resolve next to that file, as in the run it came from (and in `attractor fork`), also for an edited DOT.
    return {
      dot,
      record: {
        version: 1,
        origin: { kind: 'text' },
        filename: path === undefined || options.dot !== undefined ? RUN_SOURCE_FILE : basename(path),
        simulate: options.simulate ?? false,
        ...(path === undefined ? {} : { sourcePath: path }),
      },
    };
  }

  /**
   * Resumes a stopped run from its checkpoint (spec §5.3), optionally at another node; an archived run is unarchived.
   * @throws {ApiError} `RUN_NOT_FOUND` (404), `RUN_ALREADY_RUNNING` (409), `RESUME_REFUSED` (409: not started by a
   *   server, no checkpoint, already succeeded, graph changed), `TOOLS_NOT_ALLOWED` (400), `SERVER_STOPPING` (503).
   */
  async resume(id: string, options: { readonly from?: string } = {}): Promise<RunSummary> {
    this.#refuseWhenStopping();
    const logsRoot = resolveRunDirectory(this.#options.runsDir, id);
    const live = this.#live.get(id);
    if ((live !== undefined && !live.ended) || this.#resuming.has(id)) {
      throw new ApiError({
        status: 409,
        code: 'RUN_ALREADY_RUNNING',
        message: `Run "${id}" is running; cancel it first or wait for it to end.`,
      });
    }
    this.#resuming.add(id);
    try {
      await this.#resume(id, logsRoot, options);
    } finally {
      this.#resuming.delete(id);
    }
    // A run that goes on is not archived any more (only a run that ended is): it shows in the list again.
    writeRunArchived({ runDir: logsRoot, archivedAt: undefined });
    return this.summaryOf(id);
  }

  async #resume(id: string, logsRoot: string, options: { readonly from?: string }): Promise<RunSummary> {
    const { source, record } = readRunRequest(logsRoot);
    const manifest = await createFileRunStore({ logsRoot }).readManifest();
    const registry = this.#options.createRegistry();
    const graph = await this.#prepare(
      source,
      { filename: record.filename, ...this.#graphFileOf(record) },
      registry,
    );
    const services = await this.services(graph, logsRoot, record, registry);
    // The tokens, cost, resumes and fork origin of the earlier invocations carry over into the resumed run's totals,
    // read again from its events (an interrupted run's are not kept between reads, and another process may have
    // resumed a run that ended since they were).
    if (this.#live.get(id) === undefined) this.#keepPastTotals(logsRoot, await readRunTotals(logsRoot));
    const run = startResumedPipeline({
      ...services,
      logsRoot,
      ...(options.from === undefined ? {} : { from: options.from }),
    });
    const startedAt = manifest?.started_at ?? new Date(this.#options.clock.now()).toISOString();
    const previous = this.#live.get(id);
    const evicted = this.#evicted.get(id);
    const evictedSummary = this.#evictedSummaries.get(id);
    this.#track(run, graph, services.interviewer, startedAt, { fromManifest: manifest !== undefined });
    // A refused resume rejects before its first event: report it as a refusal, not as a running run.
    const refusal = await Promise.race([
      run.result.then(
        () => undefined,
        (error: unknown) => error,
      ),
      new Promise<undefined>((resolve) => run.events.once('pipeline.started', () => resolve(undefined))),
    ]);
    if (refusal !== undefined) {
      if (previous === undefined) {
        this.#live.delete(id);
        if (evicted !== undefined) this.#evicted.set(id, evicted);
        if (evictedSummary !== undefined) this.#evictedSummaries.set(id, evictedSummary);
      } else {
        this.#live.set(id, previous);
        if (previous.ended) this.#keepEnded(id);
      }
      if (ResumeError.isInstance(refusal) || CheckpointCorruptError.isInstance(refusal)) {
        throw new ApiError({
          status: 409,
          code: 'RESUME_REFUSED',
          message: inRunTerms(refusal.message, logsRoot, id),
          cause: refusal,
        });
      }
      throw refusal;
    }
    return this.summary(id);
  }

  /**
   * Cancels a running run: the engine stops it and keeps its last checkpoint, so it can be resumed. Answers once the
   * run has stopped (`state: "cancelled"`), or after {@link CANCEL_WAIT_MS} with the run still stopping.
   * @throws {ApiError} `RUN_NOT_FOUND` (404), `RUN_NOT_RUNNING` (409).
   */
  async cancel(id: string, reason = 'cancelled through the API'): Promise<RunSummary> {
    const live = this.#live.get(id);
    if (live === undefined || live.ended) {
      resolveRunDirectory(this.#options.runsDir, id);
      throw new ApiError({
        status: 409,
        code: 'RUN_NOT_RUNNING',
        message: `Run "${id}" is not running, so it cannot be cancelled.`,
      });
    }
    live.run.cancel(reason);
    // The engine stops at once (it does not wait for a handler that ignores its abort): answer with the stopped run.
    // The bookkeeping's own `then` on the result was registered first, so it has run when this wait ends.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      live.run.result.then(
        () => undefined,
        () => undefined,
      ),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CANCEL_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    return this.summary(id);
  }

  /**
   * Removes run `id` for good (`DELETE /pipelines/{id}`): its run directory and the directories a `loop_restart`
   * continued, through the engine's file run catalog, which takes the run's lock first. Forks of it and other runs
   * stay. Clients of `GET /events` get `event: removed` with its id.
   * @throws {ApiError} `RUN_NOT_FOUND` (404); `RUN_ACTIVE` (409) while it runs or waits here (cancel it first) or
   *   another process runs it.
   */
  async remove(id: string): Promise<void> {
    const live = this.#live.get(id);
    const refusal = this.#resuming.has(id)
      ? runActiveError({ runId: id, state: 'being resumed' })
      : live !== undefined && !live.ended
        ? runActiveError({ runId: id, state: this.summary(id).state })
        : undefined;
    if (refusal !== undefined) throw refusal;
    const logsRoot = resolveRunDirectory(this.#options.runsDir, id);
    const catalog = createFileRunCatalog(this.#options.runsDir);
    try {
      await catalog.removeRun(id);
    } catch (error) {
      throw runActiveError({ runId: id, error, holder: 'in another process' }) ?? error;
    } finally {
      await catalog.close();
    }
    this.#live.delete(id);
    this.#endedKept.delete(id);
    this.#evicted.delete(id);
    this.#evictedSummaries.delete(id);
    this.#pastTotals.delete(logsRoot);
    for (const key of [...this.#graphs.keys()]) {
      if (key === id || key.startsWith(`${id}\u0000`)) this.#graphs.delete(key);
    }
    this.#notifyRunChange(id);
  }

  /**
   * Archives run `id` (`archived` true) or unarchives it (`POST /pipelines/{id}/archive`, `/unarchive`): the mark is
   * a file in its run directory (`server-archived.json`), so it survives a restart; the run keeps everything else.
   * Clients of `GET /events` get its new summary.
   * @throws {ApiError} `RUN_NOT_FOUND` (404); `RUN_ACTIVE` (409) when archiving a run that runs or waits here.
   */
  async setArchived(id: string, archived: boolean): Promise<RunSummary> {
    const summary = await this.summaryOf(id);
    if (archived) {
      const refusal = runActiveError({
        runId: id,
        state: this.#resuming.has(id) ? 'being resumed' : summary.state,
        message: `Run "${id}" is ${summary.state}: cancel it or let it end first, then archive it.`,
      });
      if (refusal !== undefined) throw refusal;
    }
    writeRunArchived({
      runDir: this.runDirectory(id),
      archivedAt: archived ? new Date(this.#options.clock.now()) : undefined,
    });
    // A run that left memory is described again from its directory, which now holds the mark.
    this.#evictedSummaries.delete(id);
    this.#notifyRunChange(id);
    return this.summaryOf(id);
  }

  /**
   * The directory of run `id`. A run this server has just started may not have written its `manifest.json` yet (the
   * engine takes the run lock first), so a live run's directory is not checked for one.
   * @throws {ApiError} `RUN_NOT_FOUND` (404).
   */
  runDirectory(id: string): string {
    const path = join(this.#options.runsDir, id);
    // A run this server has just started has no manifest.json for a few milliseconds (it takes the run lock
    // first); every other run goes through the checks of resolveRunDirectory (no symbolic link out of runsDir).
    if (this.#live.has(id) && !existsSync(join(path, 'manifest.json'))) return path;
    return resolveRunDirectory(this.#options.runsDir, id);
  }

  /** The live run with this id, if this server runs (or ran) it. */
  live(id: string): LiveRun | undefined {
    return this.#live.get(id);
  }

  /**
   * The DOT source of run `id`, unmasked: the one this server saved when it started the run (`pipeline.dot` in its
   * directory), else the DOT file its manifest names (a run of `attractor run`), while that file still holds the
   * graph the run ran (see `readRunSourceFile`).
   * @throws {ApiError} `RUN_NOT_FOUND` (404); `NOT_FOUND` (404) when the DOT file is not named, gone or unreadable;
   *   `SOURCE_CHANGED` (409) when it was edited since the run.
   */
  async source(id: string): Promise<string> {
    const logsRoot = this.runDirectory(id);
    const saved = join(logsRoot, RUN_SOURCE_FILE);
    if (existsSync(saved)) return readTextFileSync(saved, { what: RUN_SOURCE_FILE });
    return readRunSourceFile({ runId: id, store: createFileRunStore({ logsRoot, createDirectory: false }) });
  }

  /**
   * The graph of a run: from the DOT source saved in its directory, else (a run this server did not start) from the
   * DOT file its manifest names while that file still holds the graph the run ran (see `readRunSourceFile`).
   * @throws {ApiError} `RUN_NOT_FOUND` (404); `NOT_FOUND` (404) when the DOT file is not named, gone or unreadable;
   *   `SOURCE_CHANGED` (409) when it was edited since the run.
   */
  async graphOf(id: string): Promise<Graph> {
    const live = this.#live.get(id);
    if (live?.graph !== undefined) return live.graph;
    const cached = this.#graphs.get(id);
    if (cached !== undefined) return cached;
    const graph = await this.#parsePastRun(id);
    if (this.#graphs.size >= 256) this.#graphs.delete(this.#graphs.keys().next().value!);
    this.#graphs.set(id, graph);
    return graph;
  }

  async #parsePastRun(id: string): Promise<Graph> {
    const logsRoot = resolveRunDirectory(this.#options.runsDir, id);
    let source: string;
    let filename: string;
    try {
      const saved = readRunRequest(logsRoot);
      source = saved.source;
      filename = saved.record.filename;
    } catch (error) {
      if (!ApiError.isInstance(error)) throw error;
      // As `GET /source` serves it: for a run this server did not start, the DOT file its manifest names while it
      // still holds the graph the run ran.
      source = await this.source(id);
      const manifest = await createFileRunStore({ logsRoot, createDirectory: false }).readManifest();
      filename = manifest?.source_path ?? RUN_SOURCE_FILE;
    }
    const { graph } = prepareGraph(source, { filename });
    if (graph === undefined) {
      throw new ApiError({
        status: 404,
        code: 'NOT_FOUND',
        message: `The DOT source of run "${id}" no longer parses.`,
      });
    }
    return graph;
  }

  /**
   * The summary of one run.
   * @throws {ApiError} `RUN_NOT_FOUND` (404).
   */
  async summaryOf(id: string): Promise<RunSummary> {
    const live = this.#live.get(id);
    if (live !== undefined) return this.summary(id);
    const logsRoot = resolveRunDirectory(this.#options.runsDir, id);
    const evicted = this.#evictedSummaries.get(id);
    if (evicted !== undefined) return evicted;
    return this.#readPastRun(logsRoot);
  }

  /**
   * Calls `listener` with a run's id whenever its summary may have changed (started, a stage began or ended, a
   * question was asked or answered, usage was reported, it ended). Returns the function that unsubscribes.
   */
  onRunChange(listener: (runId: string) => void): () => void {
    this.#runListeners.add(listener);
    return () => this.#runListeners.delete(listener);
  }

  /** Calls `listener` once when {@link RunManager.stopAll} begins. Returns the function that unsubscribes. */
  onStop(listener: () => void): () => void {
    this.#stopListeners.add(listener);
    return () => this.#stopListeners.delete(listener);
  }

  async #readPastRun(logsRoot: string): Promise<RunSummary> {
    const summary = await readPastRun(logsRoot);
    let totals = this.#pastTotals.get(logsRoot);
    if (totals === undefined) {
      totals = await readRunTotals(logsRoot);
      // A run that ended keeps its totals; one that may still be written to (interrupted) is read again.
      if (totals.endedAt !== undefined) this.#keepPastTotals(logsRoot, totals);
    }
    return { ...summary, ...totalsSummaryFields(totals) };
  }

  /**
   * The details of one run: summary, progress and stage files.
   * @throws {ApiError} `RUN_NOT_FOUND` (404).
   */
  async details(id: string): Promise<RunDetails> {
    const summary = await this.summaryOf(id);
    const live = this.#live.get(id);
    const logsRoot = this.runDirectory(id);
    let completedNodes: readonly string[];
    let nodeStatuses: Record<string, NodeDisplayStatus>;
    const waitingNodes = new Set<string>();
    if (live !== undefined) {
      const progress = live.run.status();
      completedNodes = [...new Set(progress.completedNodes)];
      nodeStatuses = statusesFromOutcomes(progress.nodeOutcomes);
      if (!live.ended && progress.currentNodeId !== undefined)
        nodeStatuses[progress.currentNodeId] = 'running';
      for (const entry of live.ended ? [] : live.interviewer.pending())
        waitingNodes.add(entry.question.stage);
    } else {
      const checkpoint = await readCheckpointSafely(createFileRunStore({ logsRoot, createDirectory: false }));
      completedNodes = checkpoint?.completed_nodes ?? [];
      nodeStatuses = statusesFromOutcomes(checkpoint?.node_outcomes ?? {});
    }
    // Stages inside parallel branches have no outcome in the checkpoint: their events tell.
    const events =
      live !== undefined && (!live.ended || live.fault !== undefined)
        ? live.events
        : await createFileRunStore({ logsRoot, createDirectory: false })
            .readEvents()
            .catch(() => []);
    const fromEvents = stageStatusesFromEvents(
      events.filter((event) => event.runId === id),
      { live: live !== undefined && !live.ended },
    );
    const origin = (
      await createFileRunStore({ logsRoot })
        .readManifest()
        .catch(() => undefined)
    )?.forked_from;
    // A fork's stages inside the source's parallel branches before the fork point: the source's events tell.
    // (None when the source run was deleted or its log cannot be read: the checkpoint's outcomes still show.)
    const inherited =
      origin === undefined
        ? {}
        : inheritedStageStatuses(
            await Promise.resolve()
              .then(() =>
                createFileRunStore({
                  logsRoot: this.runDirectory(origin.run_id),
                  createDirectory: false,
                }).readEvents(),
              )
              .catch(() => []),
            { runId: origin.run_id, node: origin.node, visit: origin.visit },
          );
    nodeStatuses = { ...inherited, ...fromEvents, ...nodeStatuses };
    const graph = await this.graphOf(id).catch(() => undefined);
    const nodeIds = graph === undefined ? completedNodes : [...graph.nodes.keys()];
    const listing = await readStoredStageListing(
      createFileRunStore({ logsRoot, createDirectory: false }),
      nodeIds,
    );
    const output = await Promise.resolve(
      createFileRunStore({ logsRoot, createDirectory: false }).readOutput?.(),
    ).catch(() => undefined);
    return {
      ...summary,
      ...(output === undefined ? {} : { output: this.secrets.mask(output) }),
      completedNodes,
      nodeStatuses,
      waitingNodes: [...waitingNodes],
      stages: listing.stages,
      stageDirectories: listing.stageDirectories,
      ...(origin === undefined
        ? {}
        : { forkedFrom: { runId: origin.run_id, node: origin.node, visit: origin.visit } }),
    };
  }

  /**
   * The child run (sub-pipeline, manager loop) at `path` under run `id` (see `parseChildRunPath`).
   * @throws {ApiError} `RUN_NOT_FOUND` (404), `INVALID_REQUEST` (400: not a child path), `NOT_FOUND` (404: no child
   *   run there).
   */
  childRun(id: string, path: string): ChildRunDirectory {
    return resolveChildRunDirectory(this.runDirectory(id), path);
  }

  /**
   * The details of the child run at `path` under run `id`, as {@link RunManager.details} reports a run: `id` stays
   * the top run's id and `child` says which child; a child is never resumable on its own (its top run is).
   * @throws {ApiError} as {@link RunManager.childRun}.
   */
  async childDetails(id: string, path: string): Promise<RunDetails> {
    const child = this.childRun(id, path);
    const live = this.#live.get(id);
    const key = childRunKey(child.runId, child.basePath)!;
    return readChildRunDetails({
      runId: id,
      child,
      store: createFileRunStore({ logsRoot: child.logsRoot, createDirectory: false }),
      parentLive: live !== undefined && !live.ended && !live.endedChildren.has(key),
      // The child's events.jsonl is written in batches: add those the live run has seen and the file lacks yet.
      unflushed: live?.childEvents.get(key) ?? [],
      graph: await this.childGraph(id, path).catch(() => undefined),
    });
  }

  /**
   * The graph of the child run at `path` under run `id`, from the DOT file its manifest names (`source_path`) while
   * it still holds the graph the child ran.
   * @throws {ApiError} as {@link RunManager.childRun}; `NOT_FOUND` (404) when the file cannot be read;
   *   `SOURCE_CHANGED` (409) when it was edited since the run.
   */
  async childGraph(id: string, path: string): Promise<Graph> {
    const child = this.childRun(id, path);
    const key = `${id}\u0000${path}`;
    const cached = this.#graphs.get(key);
    if (cached !== undefined) return cached;
    const graph = await readChildRunGraph(
      createFileRunStore({ logsRoot: child.logsRoot, createDirectory: false }),
      path,
    );
    if (this.#graphs.size >= 256) this.#graphs.delete(this.#graphs.keys().next().value!);
    this.#graphs.set(key, graph);
    return graph;
  }

  /** Every run: the live ones and those found in the runs directory, newest first. */
  async list(): Promise<RunSummary[]> {
    const summaries = new Map<string, RunSummary>();
    for (const id of this.#live.keys()) summaries.set(id, this.summary(id));
    for (const name of listRunDirectories(this.#options.runsDir)) {
      if (summaries.has(name)) continue;
      const evicted = this.#evictedSummaries.get(name);
      if (evicted !== undefined) {
        summaries.set(name, evicted);
        continue;
      }
      try {
        summaries.set(name, await this.#readPastRun(`${this.#options.runsDir}/${name}`));
      } catch {
        // A half-written or foreign directory: not a run we can describe; leave it out of the list.
      }
    }
    return [...summaries.values()].sort(
      (a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id),
    );
  }

  /** The summary of a live run. */
  summary(id: string): RunSummary {
    const live = this.#live.get(id);
    if (live === undefined) throw new Error(`not a live run: ${id}`);
    const progress = live.run.status();
    const pending = live.interviewer.pending().length;
    const state: RunState = live.ended
      ? live.fault !== undefined
        ? 'fail'
        : (live.result?.status ?? 'fail')
      : pending > 0
        ? 'waiting'
        : 'running';
    const failureReason = live.fault ?? live.result?.failureReason;
    const waiting = live.ended ? undefined : live.interviewer.pending()[0];
    return {
      id,
      graphName: live.graphName,
      goal: live.goal,
      state,
      startedAt: live.startedAt,
      live: !live.ended,
      resumable: live.ended && state !== 'success',
      ...(progress.currentNodeId === undefined || live.ended ? {} : { currentNode: progress.currentNodeId }),
      ...(failureReason === undefined ? {} : { failureReason }),
      pendingQuestions: pending,
      ...(waiting === undefined
        ? {}
        : {
            waitingQuestion: this.secrets.mask(
              waitingQuestionOf({ id: waiting.id, question: waiting.question }),
            ),
          }),
      ...totalsSummaryFields(live.totals),
      ...(isRunArchived(this.runDirectory(id)) ? { archived: true as const } : {}),
    };
  }

  /**
   * Cancels every running run (reason `server stopped`) and waits until each has stopped and written its last
   * checkpoint. New runs are refused from the first call on.
   */
  async stopAll(): Promise<void> {
    this.#stopping = true;
    for (const listener of [...this.#stopListeners]) listener();
    const running = [...this.#live.values()].filter((live) => !live.ended);
    for (const live of running) live.run.cancel('server stopped');
    await Promise.allSettled([...running.map((live) => live.run.result), this.validator.close()]);
  }

  /** Registers an open event stream (SSE) so that {@link RunManager.streamsDone} can wait for it. */
  trackStream(stream: Promise<void>): Promise<void> {
    const settled = stream.finally(() => this.#streams.delete(settled));
    this.#streams.add(settled);
    return settled;
  }

  /** Resolves when every open event stream has written its last event, or after `timeoutMs` (default 2000). */
  async streamsDone(timeoutMs = 2000): Promise<void> {
    const controller = new AbortController();
    await Promise.race([
      Promise.allSettled([...this.#streams]),
      this.#options.clock.sleep(timeoutMs, controller.signal).catch(() => undefined),
    ]);
    controller.abort();
  }

  /** Keeps a past run's totals, the oldest dropped past {@link PAST_RUNS_KEPT} (they can be read again). */
  #keepPastTotals(logsRoot: string, totals: RunTotals): void {
    this.#pastTotals.delete(logsRoot);
    if (this.#pastTotals.size >= PAST_RUNS_KEPT)
      this.#pastTotals.delete(this.#pastTotals.keys().next().value!);
    this.#pastTotals.set(logsRoot, totals);
  }

  /**
   * The entries this manager holds in memory: runs running or waiting, runs that ended still kept, past runs' totals.
   * For tests and diagnostics: each is bounded but the first.
   */
  memoryCounts(): RunManagerMemoryCounts {
    return {
      live: this.#live.size - this.#endedKept.size,
      ended: this.#endedKept.size,
      pastTotals: this.#pastTotals.size,
      pastSummaries: this.#evictedSummaries.size,
      evicted: this.#evicted.size,
    };
  }

  /**
   * Run `id` has ended: it stays in memory among the last `endedRunsKept`, and the oldest one kept leaves (its totals,
   * which the event log also holds, are kept with the past runs'). A run whose executor faulted stays: its events are
   * only in memory.
   */
  #keepEnded(id: string): void {
    const live = this.#live.get(id);
    if (live === undefined || live.fault !== undefined) return;
    this.#endedKept.delete(id);
    this.#endedKept.add(id);
    const kept = this.#options.endedRunsKept ?? DEFAULT_ENDED_RUNS_KEPT;
    while (this.#endedKept.size > kept) {
      const oldest = this.#endedKept.keys().next().value!;
      this.#endedKept.delete(oldest);
      const entry = this.#live.get(oldest);
      if (entry === undefined || !entry.ended) continue;
      const summary = this.summary(oldest);
      this.#evicted.set(oldest, summary.state);
      if (this.#evictedSummaries.size >= PAST_RUNS_KEPT)
        this.#evictedSummaries.delete(this.#evictedSummaries.keys().next().value!);
      this.#evictedSummaries.set(oldest, summary);
      if (entry.totals.endedAt !== undefined) this.#keepPastTotals(entry.logsRoot, entry.totals);
      this.#live.delete(oldest);
    }
  }

  #notifyRunChange(id: string): void {
    for (const listener of this.#runListeners) listener(id);
  }

  #refuseWhenStopping(): void {
    if (this.#stopping) {
      throw new ApiError({
        status: 503,
        code: 'SERVER_STOPPING',
        message: 'The server is stopping; try again later.',
      });
    }
  }

  /**
   * The DOT file a run's relative references (`graph_ref`, `stack.child_dotfile`) resolve next to, for a resume or a
   * fork: its pipeline file of the pipelines directory (absolute; `fromPipelinesDir`), else the DOT file of the
   * `attractor run` run it was forked from (`sourcePath` of its record). None (`{}`) for DOT text, or for a
   * pipelines-directory file when the server has no pipelines directory now.
   */
  #graphFileOf(record: RunRequestRecord): { path?: string; fromPipelinesDir?: boolean } {
    const pipelinesDir = this.#options.pipelinesDir;
    if (record.origin.kind !== 'file') {
      return record.sourcePath === undefined ? {} : { path: record.sourcePath, fromPipelinesDir: false };
    }
    if (pipelinesDir === undefined) return {};
    try {
      return { path: resolvePipelineFile(pipelinesDir, record.origin.path), fromPipelinesDir: true };
    } catch (error) {
      if (ApiError.isInstance(error)) return {};
      throw error;
    }
  }

  /**
   * Prepares and validates a pipeline (spec §9.1). `filename` is what diagnostics show (the path the client gave,
   * or `pipeline.dot` for DOT text). With `path` (a DOT file's absolute path), the graph carries that path, so that
   * `graph_ref` files resolve next to it when the nodes run. With `fromPipelinesDir` (`path` is the file's real path
   * in the pipelines directory), the files its `graph_ref`s name are also read and validated now (lint
   * `subgraph_ref`, as `attractor run` does): a missing, invalid or cyclic sub-pipeline, or one outside the pipelines
   * directory, refuses the pipeline before it starts. Otherwise (the DOT file of an `attractor run` run, outside the
   * pipelines directory) they are read only when their node runs, as for DOT text.
   */
  async #prepare(
    source: string,
    options: { readonly filename: string; readonly path?: string; readonly fromPipelinesDir?: boolean },
    registry: HandlerRegistry,
  ): Promise<Graph> {
    const pipelinesDir = this.#options.pipelinesDir;
    const fromDirectory = options.fromPipelinesDir === true && pipelinesDir !== undefined;
    return this.validator.prepare({
      source,
      filename: options.filename,
      ...(options.path === undefined ? {} : { path: options.path }),
      ...(fromDirectory ? { pipelinesDir } : {}),
      handlers: {
        types: [...registry.types()],
        lintInfo: registry.lintInfo(),
        handlerTypeOf: (graph, nodeId) => {
          const node = graph.node(nodeId)!;
          return registry.resolveType(node) ?? graph.handlerType(node);
        },
      },
    });
  }

  /** The services of one run: its registry, backend (from the factory), clock and a fresh HTTP interviewer. */
  private async services(
    graph: Graph,
    logsRoot: string,
    record: RunRequestRecord,
    registry: HandlerRegistry,
  ) {
    const backend = await this.#options.backendFactory({
      graph,
      runId: basename(logsRoot),
      logsRoot,
      simulate: record.simulate,
      ...(record.model === undefined ? {} : { model: record.model }),
      ...(record.provider === undefined ? {} : { provider: record.provider }),
      allowTools: this.#options.allowTools,
    });
    const clock = this.#options.clock;
    const interviewer = createHttpInterviewer({ now: () => new Date(clock.now()).toISOString() });
    return {
      graph,
      registry,
      clock,
      interviewer,
      ...(backend === undefined ? {} : { backend }),
      ...(this.#options.workdir === undefined ? {} : { workdir: this.#options.workdir }),
      ...(this.#options.workspace === undefined ? {} : { workspace: this.#options.workspace }),
      ...(record.maxSteps === undefined ? {} : { maxSteps: record.maxSteps }),
      ...(this.#options.secretValues === undefined ? {} : { secretValues: this.#options.secretValues }),
      ...(this.#options.sandbox === undefined ? {} : { sandbox: this.#options.sandbox }),
      ...(this.#options.telemetry === undefined ? {} : { telemetry: this.#options.telemetry }),
      ...(this.#options.onRunEvent === undefined ? {} : { onEvent: this.#options.onRunEvent }),
    };
  }

  /** How many of the runs this process executed or executes are in each state (the server's runs gauge). */
  countByState(): Readonly<Partial<Record<RunState, number>>> {
    const counts: Partial<Record<RunState, number>> = {
      running: 0,
      waiting: 0,
      success: 0,
      fail: 0,
      cancelled: 0,
    };
    for (const state of this.#evicted.values()) counts[state] = (counts[state] ?? 0) + 1;
    for (const id of this.#live.keys()) {
      const state = this.summary(id).state;
      counts[state] = (counts[state] ?? 0) + 1;
    }
    return counts;
  }

  #track(
    run: PipelineRun,
    graph: Graph,
    interviewer: HttpInterviewer,
    startedAt: string,
    options: { readonly fromManifest?: boolean } = {},
  ): LiveRun {
    const id = run.runId;
    const live: LiveRun = {
      id,
      logsRoot: run.logsRoot,
      graphName: graph.id,
      goal: graph.settings.goal,
      graph,
      run,
      interviewer,
      events: [],
      subscribers: this.#live.get(id)?.subscribers ?? new Set(),
      startedAt,
      totals: this.#live.get(id)?.totals ?? this.#pastTotals.get(run.logsRoot) ?? createRunTotals(),
      endedChildren: new Set(),
      childEvents: new Map(),
      ended: false,
    };
    this.#pastTotals.delete(run.logsRoot);
    this.#endedKept.delete(id);
    this.#evicted.delete(id);
    this.#evictedSummaries.delete(id);
    let startedAtRead = options.fromManifest === true;
    run.events.on('event', (event) => {
      if (!startedAtRead && event.type === 'pipeline.started' && event.runId === id) {
        // The manifest is written before the run's first event.
        startedAtRead = true;
        void createFileRunStore({ logsRoot: run.logsRoot, createDirectory: false })
          .readManifest()
          .then(
            (manifest) => {
              if (manifest !== undefined) live.startedAt = manifest.started_at;
            },
            () => undefined,
          );
      }
      const key = event.runId === id ? undefined : childRunKey(event.runId, event.branchPath);
      if (event.runId === id) live.events.push(event);
      else if (key !== undefined) {
        const ownWalk = (event.branchPath ?? []).at(-1)?.startsWith('child:') === true;
        if (event.type === 'pipeline.started' && ownWalk) {
          // A node visited again starts a child in the same place: the earlier one's events are on disk.
          live.endedChildren.delete(key);
          live.childEvents.set(key, []);
        } else if (
          ownWalk &&
          (event.type === 'pipeline.completed' ||
            event.type === 'pipeline.failed' ||
            event.type === 'pipeline.cancelled')
        )
          live.endedChildren.add(key);
        const list = live.childEvents.get(key);
        if (list === undefined) live.childEvents.set(key, [event]);
        else list.push(event);
      }
      addEventToTotals(live.totals, event);
      for (const subscriber of live.subscribers) subscriber(event);
      if (SUMMARY_EVENTS.has(event.type)) this.#notifyRunChange(id);
    });
    const finish = () => {
      live.ended = true;
      // Every child has written its events.jsonl by now, and so has the run unless a fault stopped it: what a
      // finished run is asked for comes from its files, and its memory returns (issue 34 §11).
      live.childEvents.clear();
      if (live.fault === undefined) live.events.length = 0;
      for (const subscriber of live.subscribers) subscriber(undefined);
      live.subscribers.clear();
      // Only once this entry is still the run's (a refused resume puts the earlier one back).
      if (this.#live.get(id) === live) this.#keepEnded(id);
      this.#notifyRunChange(id);
    };
    run.result.then(
      (result) => {
        live.result = {
          status: result.status,
          ...(result.failureReason === undefined ? {} : { failureReason: result.failureReason }),
        };
        live.run = finishedRun(run.status());
        live.graph = undefined;
        finish();
      },
      (error: unknown) => {
        live.fault = error instanceof Error ? error.message : String(error);
        finish();
      },
    );
    this.#live.set(id, live);
    return live;
  }
}

/**
 * What a {@link LiveRun} keeps of the engine's run once it has ended: its last progress. Made here, outside the scope
 * that holds the engine's run, so that the closures do not keep it alive.
 */
function finishedRun(progress: ReturnType<PipelineRun['status']>): LiveRun['run'] {
  return { status: () => progress, cancel: () => {}, result: Promise.resolve() };
}

/**
 * An engine message about the run directory `runDir` in the API's terms: the directory is the run `id`, and a file in
 * it is named relative to it (a client knows runs by id; the server's own paths are none of its business).
 * @example inRunTerms('Cannot resume /srv/runs/r1: it already completed', '/srv/runs/r1', 'r1'); // 'Cannot resume run "r1": …'
 */
function inRunTerms(message: string, runDir: string, id: string): string {
  return message.replaceAll(`${runDir}/`, '').replaceAll(runDir, `run "${id}"`);
}

async function readPastRun(logsRoot: string): Promise<RunSummary> {
  // The engine's one reader of a run; a damaged checkpoint leaves the run listed as interrupted.
  const store = createFileRunStore({ logsRoot, createDirectory: false });
  const record = await readRun(store, { stages: false }).catch(async (error: unknown) => {
    if (!CheckpointCorruptError.isInstance(error)) throw error;
    return { manifest: await store.readManifest(), checkpoint: undefined };
  });
  const manifest = record.manifest;
  if (manifest === undefined) throw new Error(`no manifest in ${logsRoot}`);
  let startedByServer = true;
  try {
    readRunRequest(logsRoot);
  } catch {
    startedByServer = false;
  }
  const summary = pastRunSummary({
    id: basename(logsRoot),
    manifest,
    checkpoint: record.checkpoint,
    finalEvent: readFinalEvent(logsRoot),
    startedByServer,
  });
  return isRunArchived(logsRoot) ? { ...summary, archived: true } : summary;
}

/** The totals of a run's recorded events (tokens, cost, resumes, fork origin, end); empty when none can be read. */
async function readRunTotals(logsRoot: string): Promise<RunTotals> {
  const totals = createRunTotals();
  for (const event of await createFileRunStore({ logsRoot })
    .readEvents()
    .catch(() => []))
    addEventToTotals(totals, event);
  return totals;
}
