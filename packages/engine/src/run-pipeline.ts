/**
 * The public entry points of the engine: `startPipeline` / `runPipeline` (spec §3.1–3.2) and
 * `startResumedPipeline` / `resumePipeline` (spec §5.3), plus `loop_restart` and child pipelines.
 */

import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Graph } from '@attractor/graph';
import type { Context as TraceContext } from '@opentelemetry/api';
import type { EventEmitter } from 'eventemitter3';
import type { ArtifactStore } from './artifact-store.js';
import { watchCancelRequest } from './cancel-request-file.js';
import type { RunBudget } from './check-budget.js';
import { type Clock, systemClock } from './clock.js';
import type { CodergenBackend } from './codergen-backend.js';
import type { CommandSandbox } from './command-sandbox.js';
import { Context } from './context.js';
import { ResumeError } from './errors/resume-error.js';
import { RunDirectoryInUseError } from './errors/run-directory-in-use-error.js';
import { EventBus, EventHub, type PipelineEventMap } from './event-bus.js';
import { createArtifactStore } from './file-artifact-store.js';
import { createFileRunStore, readEngineVersion } from './file-run-store.js';
import { graphFingerprint } from './graph-fingerprint.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { ChildRunHandle, ChildRunStatus, RunChildOptions } from './handler-runtime.js';
import type { Interviewer } from './interviewer.js';
import type { JsonValue } from './json-value.js';
import { createMaskingRunStore, eventSinkOf } from './masking-run-store.js';
import type { PipelineEvent } from './pipeline-event.js';
import { inputContextValues, inputsOfContext, validatePipelineInputs } from './pipeline-inputs.js';
import type { PipelineTelemetry } from './pipeline-telemetry.js';
import { createProcessGroupRecorder, endOrphanedProcessGroups } from './process-group-file.js';
import { createSecretMasker } from './redact-secrets.js';
import type { RunLock } from './run-lock.js';
import { createRunMetrics } from './run-metrics.js';
import type { RunResult, RunStatus } from './run-result.js';
import { type ChildOrigin, type RunScope, recordProcessGroups } from './run-scope.js';
import type { CheckpointOrigin, RunManifest, RunStore } from './run-store.js';
import { readRun } from './run-store.js';
import { type RunSpan, RunTelemetry } from './run-telemetry.js';
import type { WorkspaceProvider, WorkspaceRecord } from './run-workspace.js';
import { UsageLedger } from './usage-ledger.js';
import { usageTotalsFromContext } from './usage-totals.js';
import { buildCheckpoint, type WalkEnd, walkTopLevel } from './walk-graph.js';
import { nodePositions, WalkState } from './walk-state.js';

/** Options shared by {@link runPipeline} and {@link resumePipeline}. */
export interface PipelineServicesOptions {
  /** The pipeline, built and validated (e.g. with `prepareGraph` from `@attractor/graph`). */
  readonly graph: Graph;
  /** Handlers by type; see `createHandlerRegistry` in `@attractor/handlers` for the built-ins. */
  readonly registry: HandlerRegistry;
  /** The run's working directory (cwd of tools, root of agent file tools). Default: `process.cwd()`. */
  readonly workdir?: string;
  /** Cancels the run: the walk stops before the next node (or aborts the running one) and the last checkpoint stays intact. */
  readonly abortSignal?: AbortSignal;
  /** Time source. Default: {@link systemClock}. */
  readonly clock?: Clock;
  /** Uniform random numbers in [0, 1) for retry jitter. Default: `Math.random`. */
  readonly random?: () => number;
  /** Answers human gates. Without one, a `wait.human` node fails with an explanation. */
  readonly interviewer?: Interviewer;
  /** The LLM backend handed to handlers as `runtime.backend`. */
  readonly backend?: CodergenBackend;
  /** Called with every event, synchronously, in order (also events of child pipelines). */
  readonly onEvent?: (event: PipelineEvent) => void;
  /** Overrides the graph's `max_steps` (node executions per run, default 1000, or 10 per node in graphs of over 100 nodes). */
  readonly maxSteps?: number;
  /**
   * Overrides the graph's `max_budget_usd`: no model call starts once the run's model calls (parallel branches and
   * child runs included) cost this many USD; checked before each LLM stage and each model call.
   */
  readonly maxBudgetUsd?: number;
  /** Overrides the graph's `max_tokens`: no model call starts once the run's model calls used this many tokens. */
  readonly maxTokens?: number;
  /**
   * Confines the commands stages start (tool commands, agent CLIs): handlers get it as `runtime.sandbox`, backends as
   * `CodergenRequest.sandbox` (see `createBubblewrapSandbox`; check it with `checkBubblewrap` first). Child runs use it
   * too. Default: none (commands run unconfined).
   */
  readonly sandbox?: CommandSandbox;
  /** fsync checkpoints before renaming them (power-loss safety; costs ~0.3 ms per node). Default: false. */
  readonly fsync?: boolean;
  /**
   * Known secret values (API keys; see `secretValuesFromEnv`) masked wherever the run writes or sends data: events,
   * `checkpoint.json`, `manifest.json`, `status.json`, stage files written by handlers (`runtime.secrets`) and
   * preambles. Values under secret-named keys and well-known token shapes are masked even without it.
   */
  readonly secretValues?: readonly string[];
  /**
   * Persistence. Default: {@link createFileRunStore} on the run directory. Called with the run directory, a
   * `loop_restart` continuation's sibling `<dir>-restart-<n>`, and child runs' locations. A restarted run records its
   * continuation by the store's name for it (`RunStore.logsRoot`: the directory for the file store, e.g.
   * `postgres://…#<run id>-restart-1` for another) in `restarted_to`, `restarted_from` and `pipeline.restarted`; with
   * another store, resume follows `restarted_to` by its last name, as the sibling of the run directory it was given.
   */
  readonly createRunStore?: (logsRoot: string) => RunStore;
  /** Size above which artifacts are written to disk, in bytes. Default: 102400. */
  readonly artifactThresholdBytes?: number;
  /**
   * OpenTelemetry spans and metrics of the run (a tracer, a meter from `@opentelemetry/api`; see
   * {@link PipelineTelemetry}). Default: none.
   */
  readonly telemetry?: PipelineTelemetry;
  /**
   * Gives the run a workspace of its own (README "Workspaces"; `createWorkspaceProvider` of `@attractor/workspace`:
   * a git worktree, a commit per stage that changed files, files restored on resume and fork). Default: none, the
   * run works in `workdir` in place. A run whose checkpoint records a workspace resumes only with a provider.
   */
  readonly workspace?: WorkspaceProvider;
}

/** Options of {@link runPipeline}. */
export interface RunPipelineOptions extends PipelineServicesOptions {
  /** The run directory (spec §5.6); created if missing. See {@link defaultLogsRoot}. */
  readonly logsRoot: string;
  /** Initial context values, applied after the `graph.*` mirror. Values must be JSON. */
  readonly context?: Readonly<Record<string, JsonValue>>;
  /** The DOT file the graph came from, recorded in `manifest.json`. Default: `graph.filename`. */
  readonly sourcePath?: string;
  /**
   * The run's inputs, by name (README "Typed data"), checked against the graph's `inputs` before any stage runs and
   * put in the context as `input.<name>` (`$input.<name>` in prompts and tool commands). Inputs may also come as
   * `input.<name>` keys of `context` (a queued run carries them so); `inputs` wins over those. A schema file is read
   * relative to `inputsBaseDirectory`, else `sourcePath`'s directory, else `workdir`. Default: none; a graph with
   * required inputs refuses that.
   */
  readonly inputs?: Readonly<Record<string, JsonValue>>;
  /** Where a relative input schema file (`inputs="schemas/in.json"`) is read from. Default: `sourcePath`'s directory. */
  readonly inputsBaseDirectory?: string;
}

/** Options of {@link resumePipeline}. */
export interface ResumePipelineOptions extends PipelineServicesOptions {
  /** The run directory to resume. */
  readonly logsRoot: string;
  /**
   * Continue at this node instead of the checkpoint's next node (CLI `--from`). Also allows re-running a run that
   * ended in success.
   */
  readonly from?: string;
}

/** A running pipeline: its events (emitter and async iterator), its progress, and its result. */
export interface PipelineRun {
  /** The run id (the run directory's name). */
  readonly runId: string;
  /** The run directory. */
  readonly logsRoot: string;
  /** Typed events by `type` (plus `'event'` for all), delivered synchronously as they happen. */
  readonly events: EventEmitter<PipelineEventMap>;
  /** Iterates the events from the moment of the call until the run ends. */
  [Symbol.asyncIterator](): AsyncIterator<PipelineEvent>;
  /** The current progress: current node, completed nodes, outcomes. */
  status(): ChildRunStatus;
  /** Settles when the run ends. Rejects only on programmer or infrastructure faults (bad `from`, unwritable directory). */
  readonly result: Promise<RunResult>;
  /** Cancels the run (same as aborting `abortSignal`). */
  cancel(reason?: string): void;
}

/**
 * The default run directory (docs/architecture.md "Run directory"): `<root>/<UTC timestamp>-<graph name>`,
 * e.g. `.attractor/runs/2026-01-31T12-00-00Z-demo`. Pure: pass the time.
 */
export function defaultLogsRoot(options: {
  readonly graph: Graph;
  readonly nowMs: number;
  readonly root?: string;
}): string {
  const stamp = new Date(options.nowMs)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll(':', '-');
  const name = options.graph.id.replace(/[^A-Za-z0-9._-]+/g, '_') || 'pipeline';
  return join(options.root ?? join('.attractor', 'runs'), `${stamp}-${name}`);
}

/**
 * Starts a pipeline run (spec §3.1–3.2) and returns at once. Attach listeners synchronously: the first event is
 * emitted after the current tick. `result` rejects with {@link RunDirectoryInUseError} when `logsRoot` already
 * holds a run.
 *
 * @example
 * const run = startPipeline({ graph, registry, logsRoot: '.attractor/runs/demo' });
 * run.events.on('stage.completed', (event) => console.log(event.nodeId, event.status));
 * const result = await run.result;
 */
export function startPipeline(options: RunPipelineOptions): PipelineRun {
  return launch(options, async (session) => {
    const logsRoot = resolve(options.logsRoot);
    // Refused before the run directory is touched: nothing runs and nothing is written for bad inputs.
    const sourcePath = options.sourcePath ?? options.graph.filename;
    const inputs = await validatePipelineInputs({
      graph: options.graph,
      inputs: { ...inputsOfContext(options.context ?? {}), ...options.inputs },
      baseDirectory:
        options.inputsBaseDirectory ??
        (sourcePath === undefined ? resolve(options.workdir ?? '.') : dirname(resolve(sourcePath))),
    });
    const values =
      Object.keys(inputs).length === 0
        ? options.context
        : { ...options.context, ...inputContextValues(inputs) };
    const context = initialContext(options.graph, values);
    const start = options.graph.startNode;
    if (start === undefined) {
      throw new Error(
        `Graph "${options.graph.id}" has ${options.graph.startNodes.length} start nodes; exactly one is required (shape=Mdiamond or id "start"). Run validate() first.`,
      );
    }
    await session.lock(logsRoot);
    if (
      (await session
        .storeFor(logsRoot)
        .readCheckpoint()
        .catch(() => 'corrupt')) !== undefined
    ) {
      throw new RunDirectoryInUseError({ logsRoot });
    }
    return runFromStart(session, {
      logsRoot,
      graph: options.graph,
      context,
      startNodeId: start.id,
      values,
    });
  });
}

/** A walk of a new run from its start node. */
function runFromStart(
  session: Session,
  options: {
    logsRoot: string;
    graph: Graph;
    context: Context;
    startNodeId: string;
    values: Readonly<Record<string, JsonValue>> | undefined;
  },
): Promise<RunResult> {
  return session.runFrom({
    logsRoot: options.logsRoot,
    context: options.context,
    state: new WalkState(nodePositions(options.graph.nodes.keys())),
    startNodeId: options.startNodeId,
    fresh: true,
    ...(options.values === undefined ? {} : { initialValues: options.values }),
  });
}

/**
 * Runs a pipeline to the end (spec §3.2). Resolves with the result also when the run fails; rejects only on
 * programmer or infrastructure faults.
 *
 * @example
 * const result = await runPipeline({ graph, registry, logsRoot: '.attractor/runs/demo', interviewer, backend });
 * if (result.status !== 'success') console.error(result.failureReason);
 */
export function runPipeline(options: RunPipelineOptions): Promise<RunResult> {
  return startPipeline(options).result;
}

/**
 * Resumes a run from its checkpoint (spec §5.3, docs/architecture.md "Resume"): restores the context,
 * outcomes, visit, retry and gate counters, and continues at the checkpoint's `next_node` (or `from`). A run
 * that ended in FAIL re-runs the failed node. The first stage after the resume gets `summary:high` instead of
 * `full` fidelity.
 *
 * Resume reads only the checkpoint (and the manifest); `events.jsonl` is an audit trail. The result's
 * `completedNodes` starts with the checkpoint's window of recent executions (at most 100), and `nodeOutcomes` with
 * its goal gates and recent nodes. A run interrupted before its first checkpoint starts again from the start node.
 *
 * @throws {ResumeError} (as a rejection) when there is no checkpoint, the graph differs from the checkpointed one
 *   (sha256), the run already succeeded (without `from`), or the node to continue at does not exist.
 * @throws {CheckpointCorruptError} (as a rejection) when the checkpoint does not parse.
 */
export function resumePipeline(options: ResumePipelineOptions): Promise<RunResult> {
  return startResumedPipeline(options).result;
}

/** Like {@link resumePipeline}, returning the {@link PipelineRun} for events and progress. */
export function startResumedPipeline(options: ResumePipelineOptions): PipelineRun {
  return launch(options, async (session) => {
    let logsRoot = resolve(options.logsRoot);
    let store = session.storeFor(logsRoot);
    // A run continued by loop_restart resumes where it went on: follow the chain to its newest directory.
    const followed = new Set<string>([logsRoot]);
    let checkpoint = await store.readCheckpoint();
    while (checkpoint?.state === 'restarted' && checkpoint.restarted_to !== undefined) {
      // Another store's run is followed by the continuation's name, as a sibling of the run resumed here: what it
      // recorded may be another machine's name for it (an older worker wrote its own local directory).
      const next =
        options.createRunStore === undefined
          ? resolve(logsRoot, checkpoint.restarted_to)
          : continuationOf(logsRoot, checkpoint.restarted_to);
      if (next === undefined || followed.has(next)) break;
      followed.add(next);
      await store.close();
      logsRoot = next;
      store = session.storeFor(logsRoot);
      checkpoint = await store.readCheckpoint();
    }
    // Held before the checkpoint is read for good: a second resume of a running run stops here.
    await session.lock(logsRoot);
    const record = await readRun(store, { stages: false });
    const manifest = record.manifest;
    checkpoint = record.checkpoint;
    if (manifest === undefined) {
      throw new ResumeError({
        reason: 'no_checkpoint',
        logsRoot,
        message: `Cannot resume ${logsRoot}: it has no ${checkpoint === undefined ? 'checkpoint.json' : 'manifest.json'}. Start a new run instead.`,
      });
    }
    const graph = options.graph;
    const sha = graphFingerprint(graph);
    const recordedSha = checkpoint?.graph_sha256 ?? manifest.source_sha256;
    if (recordedSha !== sha) {
      throw new ResumeError({
        reason: 'graph_mismatch',
        logsRoot,
        message: `Cannot resume ${logsRoot}: it was run with a different graph (sha256 ${recordedSha.slice(0, 12)}…${manifest.source_path === undefined ? '' : ` from ${manifest.source_path}`}), not this one (sha256 ${sha.slice(0, 12)}…). Resume with the original DOT file, or start a new run.`,
      });
    }
    const from = options.from;
    if (from === undefined && checkpoint?.state === 'success') {
      throw new ResumeError({
        reason: 'already_completed',
        logsRoot,
        message: `Cannot resume ${logsRoot}: the run already completed successfully. Pass \`from\` (CLI --from <node>) to re-run from a node.`,
      });
    }
    const startNodeId = from ?? (checkpoint === undefined ? graph.startNode?.id : checkpoint.next_node);
    if (startNodeId === undefined || startNodeId === null || graph.node(startNodeId) === undefined) {
      throw new ResumeError({
        reason: 'unknown_node',
        logsRoot,
        message: `Cannot resume ${logsRoot}: node "${startNodeId ?? ''}" is not in graph "${graph.id}".`,
      });
    }
    if (checkpoint?.workspace !== undefined && options.workspace === undefined) {
      throw new ResumeError({
        reason: 'workspace_required',
        logsRoot,
        message: `Cannot resume ${logsRoot}: it works in a ${checkpoint.workspace.mode} workspace (commit ${checkpoint.workspace.commit.slice(0, 12)}), and no workspace provider was given. Pass \`workspace: createWorkspaceProvider()\` of @attractor/workspace (the CLI and the server do).`,
      });
    }
    // New events continue the audit trail's numbering; nothing else is read from it.
    const lastSeq = Math.max(await store.readLastEventSeq(), checkpoint?.last_seq ?? 0);
    const positions = nodePositions(graph.nodes.keys());
    if (checkpoint === undefined) {
      // Interrupted before its first checkpoint: start again from the start, with the initial context it was given.
      return session.runFrom({
        logsRoot,
        context: initialContext(graph, manifest.initial_context),
        state: new WalkState(positions),
        startNodeId,
        fresh: true,
        resumed: true,
        lastSeq,
        manifest,
      });
    }
    const state = WalkState.fromCheckpoint(
      checkpoint,
      manifest.node_ids ?? [...graph.nodes.keys()],
      positions,
    );
    const context = new Context(checkpoint.context, checkpoint.logs);
    const edge =
      from === undefined && checkpoint.next_edge_index !== null
        ? graph.edges[checkpoint.next_edge_index]
        : undefined;
    return session.runFrom({
      logsRoot,
      context,
      state,
      startNodeId,
      fresh: false,
      resumed: true,
      lastSeq,
      manifest,
      ...(checkpoint.origin === undefined ? {} : { origin: checkpoint.origin }),
      ...(edge === undefined ? {} : { incomingEdgeIndex: edge.index }),
      ...(checkpoint.workspace === undefined ? {} : { workspaceRecord: checkpoint.workspace }),
      ...(checkpoint.state === 'fail' ? { resumedAfterFailure: true } : {}),
    });
  });
}

/** `{stem}{suffix}`, or `{stem}-2{suffix}`, `-3`, ... when the stage already holds that file. */
async function freeStageFileName(
  store: RunStore,
  stagePath: string,
  stem: string,
  suffix: string,
): Promise<string> {
  const taken = new Set((await store.listStageFiles(stagePath)).map((file) => file.name));
  let name = `${stem}${suffix}`;
  for (let n = 2; taken.has(name); n += 1) name = `${stem}-${n}${suffix}`;
  return name;
}

/**
 * The run's result (README "Typed data"): the value of each of the graph's `outputs` keys the context holds, by key;
 * undefined when the graph declares no outputs.
 */
function runOutput(graph: Graph, context: Context): Record<string, JsonValue> | undefined {
  const keys = graph.settings.outputs;
  if (keys.length === 0) return undefined;
  const output: Record<string, JsonValue> = {};
  for (const key of keys) {
    const value = context.get(key);
    if (value !== undefined) output[key] = value;
  }
  return output;
}

/** A new run's context: the `graph.*` mirror, then the initial values. */
function initialContext(graph: Graph, values: Readonly<Record<string, JsonValue>> | undefined): Context {
  const context = new Context();
  mirrorGraphAttributes(graph, context);
  if (values !== undefined) context.applyUpdates(values);
  return context;
}

function mirrorGraphAttributes(graph: Graph, context: Context): void {
  for (const [key, attribute] of Object.entries(graph.attributes))
    context.set(`graph.${key}`, attribute.value);
  context.set('graph.goal', graph.settings.goal);
}

interface RunFromOptions {
  readonly logsRoot: string;
  readonly context: Context;
  readonly state: WalkState;
  readonly startNodeId: string;
  readonly incomingEdgeIndex?: number;
  /** A walk from the start: write the initial checkpoint (and the manifest, unless `manifest` is given). */
  readonly fresh: boolean;
  /** `pipeline.started` says `resumed: true`. Default: `!fresh`. */
  readonly resumed?: boolean;
  readonly lastSeq?: number;
  /** The run's existing manifest; without it a new one is written. */
  readonly manifest?: RunManifest;
  readonly restartedFrom?: string;
  /** The initial context values, recorded in a new manifest. */
  readonly initialValues?: Readonly<Record<string, JsonValue>>;
  /** Where a forked run came from. */
  readonly origin?: CheckpointOrigin;
  /** The checkpoint's workspace record (resume, fork), or the previous leg's (a `loop_restart` continuation). */
  readonly workspaceRecord?: WorkspaceRecord;
  /** A resume of a run whose checkpoint says it ended in failure (see `WorkspaceOpenRequest.failed`). */
  readonly resumedAfterFailure?: boolean;
}

interface Session {
  storeFor(logsRoot: string): RunStore;
  /** Takes the run lock of a run directory (once per session; released when the run ends). */
  lock(logsRoot: string): Promise<RunLock>;
  runFrom(options: RunFromOptions): Promise<RunResult>;
}

interface LaunchExtras {
  /** Events of a child pipeline also go to its parent's consumers, with this branch path prefix. */
  readonly basePath?: readonly string[];
  /** The run's location as its store names it, used as it is (a child run of a store that is not a directory). */
  readonly logsRoot?: string;
  /** A child run's parent ledger: the parent's budget applies to the child. */
  readonly parentUsage?: UsageLedger;
  /** The parent of a child run's spans: the trace context of the stage that started it. */
  readonly traceContext?: TraceContext;
}

function launch(
  options: PipelineServicesOptions & { readonly sourcePath?: string },
  body: (session: Session) => Promise<RunResult>,
  extras: LaunchExtras = {},
): PipelineRun {
  const clock = options.clock ?? systemClock;
  const controller = new AbortController();
  const signal =
    options.abortSignal === undefined
      ? controller.signal
      : AbortSignal.any([options.abortSignal, controller.signal]);
  // One ledger for the whole call (loop_restart continuations included); it counts every event the hub delivers, a
  // child run's too (a child's hub forwards to its parent's). A run's metrics come from its events the same way.
  const usage = new UsageLedger({
    budget: budgetOf(
      options.maxBudgetUsd ?? options.graph.settings.maxBudgetUsd,
      options.maxTokens ?? options.graph.settings.maxTokens,
    ),
    ...(extras.parentUsage === undefined ? {} : { parent: extras.parentUsage }),
  });
  let usageSeeded = extras.parentUsage !== undefined;
  const meter = extras.basePath === undefined ? options.telemetry?.meter : undefined;
  const recordMetrics = meter === undefined ? undefined : createRunMetrics({ meter });
  const onEvent = options.onEvent;
  const hub = new EventHub((event) => {
    usage.observe(event);
    recordMetrics?.(event);
    onEvent?.(event);
  });
  const stores = new Map<string, RunStore>();
  const secrets = createSecretMasker({ values: options.secretValues ?? [] });
  const telemetry = RunTelemetry.create(options.telemetry, secrets);
  const parentContext =
    telemetry === undefined
      ? undefined
      : (extras.traceContext ?? options.telemetry?.parentContext ?? telemetry.activeContext());
  let live: { state: WalkState; logsRoot: string; runId: string } | undefined;
  let finished: RunResult | undefined;
  const initialRoot = extras.logsRoot ?? resolve((options as { logsRoot?: string }).logsRoot ?? '.');

  const storeFor = (logsRoot: string): RunStore => {
    let store = stores.get(logsRoot);
    if (store === undefined) {
      store = createMaskingRunStore(
        (
          options.createRunStore ??
          ((root) => createFileRunStore({ logsRoot: root, fsync: options.fsync ?? false }))
        )(logsRoot),
        secrets,
      );
      stores.set(logsRoot, store);
    }
    return store;
  };

  const locks = new Map<string, RunLock>();
  const lock = async (logsRoot: string): Promise<RunLock> => {
    let held = locks.get(logsRoot);
    if (held === undefined) {
      held = await storeFor(logsRoot).acquireLock({ since: new Date(clock.now()).toISOString() });
      locks.set(logsRoot, held);
    }
    return held;
  };
  const unlock = async (logsRoot: string): Promise<void> => {
    const held = locks.get(logsRoot);
    locks.delete(logsRoot);
    await held?.release();
  };

  const runFrom = async (from: RunFromOptions): Promise<RunResult> => {
    const span =
      parentContext === undefined
        ? undefined
        : telemetry?.startRun({
            parent: parentContext,
            runId: basename(from.logsRoot),
            pipeline: options.graph.id,
            resumed: from.resumed ?? !from.fresh,
          });
    try {
      return await walkFrom(from, span);
    } catch (error) {
      span?.fault(error);
      throw error;
    }
  };

  const walkFrom = async (from: RunFromOptions, span: RunSpan | undefined): Promise<RunResult> => {
    const runLock = await lock(from.logsRoot);
    // A run directory can be cancelled from another process (`requestRunCancel`, `attractor cancel <run dir>`).
    const stopWatching =
      options.createRunStore === undefined
        ? watchCancelRequest({
            logsRoot: from.logsRoot,
            since: runLock.holder.since,
            onRequest: (reason) => controller.abort(new Error(reason)),
          })
        : undefined;
    try {
      return await runLocked(from, runLock, span);
    } finally {
      stopWatching?.();
    }
  };

  const runLocked = async (
    from: RunFromOptions,
    runLock: RunLock,
    span: RunSpan | undefined,
  ): Promise<RunResult> => {
    const startedMs = clock.now();
    const store = storeFor(from.logsRoot);
    const runId = basename(from.logsRoot);
    const graph = options.graph;
    const graphSha256 = graphFingerprint(graph);
    const givenWorkdir = resolve(options.workdir ?? process.cwd());
    const bus = new EventBus({
      runId,
      clock,
      hub,
      store: eventSinkOf(store, secrets),
      lastSeq: from.lastSeq ?? 0,
      secrets,
      ...(extras.basePath === undefined ? {} : { basePath: extras.basePath }),
    });
    // Taking over a run: a dead runner's commands must not keep writing while the stage runs again (nor while the
    // workspace is put back at the checkpoint's commit). The lock ended those its holder record listed;
    // process-groups.json (file stores) may list more.
    const ended = from.fresh
      ? []
      : [
          ...new Set([
            ...(runLock.endedProcessGroups ?? []),
            ...(options.createRunStore === undefined
              ? await endOrphanedProcessGroups({ logsRoot: from.logsRoot, sleep: (ms) => clock.sleep(ms) })
              : []),
          ]),
        ];
    // Before the manifest: a workspace that cannot be opened (not a repository) leaves no run behind.
    const opened = await options.workspace?.open({
      runId,
      logsRoot: store.logsRoot,
      workdir: givenWorkdir,
      graph,
      resumed: !from.fresh,
      ...(from.workspaceRecord === undefined ? {} : { record: from.workspaceRecord }),
      ...(from.fresh ? {} : { interruptedStage: from.startNodeId }),
      ...(from.resumedAfterFailure === true ? { failed: true } : {}),
      store,
      ...(from.origin !== undefined &&
      from.workspaceRecord !== undefined &&
      from.workspaceRecord.run_id !== runId
        ? { sourceStore: storeFor(from.origin.logs_root) }
        : {}),
      abortSignal: signal,
    });
    const workspace = opened?.workspace;
    const workdir = workspace?.workdir ?? givenWorkdir;
    let manifest = from.manifest;
    if (manifest === undefined) {
      const sourcePath = options.sourcePath ?? graph.filename;
      manifest = {
        version: 1,
        run_id: runId,
        graph_name: graph.id,
        goal: graph.settings.goal,
        ...(sourcePath === undefined ? {} : { source_path: resolve(sourcePath) }),
        source_sha256: graphSha256,
        started_at: new Date(startedMs).toISOString(),
        engine_version: readEngineVersion(),
        workdir: givenWorkdir,
        ...(from.restartedFrom === undefined ? {} : { restarted_from: from.restartedFrom }),
        node_ids: [...graph.nodes.keys()],
        ...(from.initialValues === undefined ? {} : { initial_context: from.initialValues }),
        ...(from.origin === undefined ? {} : { forked_from: from.origin }),
      };
      await store.writeManifest(manifest);
    }
    const artifacts: ArtifactStore = createArtifactStore({
      runStore: store,
      clock,
      ...(options.artifactThresholdBytes === undefined
        ? {}
        : { thresholdBytes: options.artifactThresholdBytes }),
    });
    if (!usageSeeded) {
      // A resumed or forked run goes on from the totals its checkpoint recorded (a child run starts from zero).
      usageSeeded = true;
      const recorded = usageTotalsFromContext((key) => from.context.get(key));
      if (recorded !== undefined) usage.seed(recorded);
    }
    const scope: RunScope = {
      graph,
      registry: options.registry,
      bus,
      store,
      clock,
      random: options.random ?? Math.random,
      interviewer: options.interviewer,
      backend: options.backend,
      artifacts,
      runId,
      logsRoot: from.logsRoot,
      workdir,
      workspace,
      graphSha256,
      secrets,
      // Only a run directory on disk can tell a later runner which groups to end.
      ...(options.createRunStore === undefined
        ? { processGroupFile: createProcessGroupRecorder({ logsRoot: from.logsRoot }) }
        : {}),
      exitNodeIds: new Set(graph.exitNodes.map((node) => node.id)),
      goalGateIds: new Set([...graph.nodes.values()].filter((node) => node.goalGate).map((node) => node.id)),
      maxSteps: options.maxSteps ?? graph.settings.maxSteps,
      origin: from.origin,
      lock: runLock,
      processGroups: recordProcessGroups(runLock, (error) =>
        bus.emit({
          type: 'stage.log',
          level: 'warn',
          nodeId: live?.state.currentNodeId ?? '',
          message: `could not record a process group in the run lock: ${error instanceof Error ? error.message : String(error)}`,
        }),
      ),
      usage,
      ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
      startChild: (childOptions, origin) =>
        startChild(options, childOptions, origin, hub, extras.basePath ?? []),
      telemetry,
    };
    live = { state: from.state, logsRoot: from.logsRoot, runId };
    bus.emit({
      type: 'pipeline.started',
      name: graph.id,
      goal: graph.settings.goal,
      logsRoot: from.logsRoot,
      resumed: from.resumed ?? !from.fresh,
      startNodeId: from.startNodeId,
      // A fork's first start (its log is empty); its origin stays in the checkpoints of later resumes too.
      ...(from.origin === undefined || (from.lastSeq ?? 0) > 0
        ? {}
        : { forkedFrom: { runId: from.origin.run_id, node: from.origin.node, visit: from.origin.visit } }),
      ...(workspace === undefined
        ? {}
        : {
            workspace: {
              mode: workspace.mode,
              workdir: workspace.workdir,
              ...(workspace.ref === undefined ? {} : { branch: workspace.ref }),
              commit: workspace.record().commit,
            },
          }),
    });
    if (opened?.leftovers !== undefined) {
      // What an interrupted stage left in the workspace is kept as a patch of that stage, never silently lost.
      const name = await freeStageFileName(store, from.startNodeId, 'interrupted-changes', '.patch');
      await store.writeStageFile(from.startNodeId, name, opened.leftovers.patch);
      bus.emit({
        type: 'stage.log',
        nodeId: from.startNodeId,
        level: 'warn',
        message: `the workspace held ${opened.leftovers.files.length} changed file(s) past the checkpoint's commit (${opened.leftovers.files.slice(0, 10).join(', ')}${opened.leftovers.files.length > 10 ? ', …' : ''}): kept as ${name} among the files of stage "${from.startNodeId}" (in ${from.startNodeId}/, or in ${from.startNodeId}/visits/<n>/ with the visit it belongs to once the stage runs again), and the workspace was reset to commit ${workspace?.record().commit.slice(0, 12) ?? ''}`,
      });
    }
    if (opened?.kept !== undefined) {
      // What the user changed in the workspace after the run failed (a fix) is what the stage runs again on.
      bus.emit({
        type: 'stage.log',
        nodeId: from.startNodeId,
        level: 'info',
        message: `the workspace held ${opened.kept.files.length} file(s) changed since the run stopped (${opened.kept.files.slice(0, 10).join(', ')}${opened.kept.files.length > 10 ? ', …' : ''}): kept as commit ${opened.kept.commit.slice(0, 12)}${workspace?.ref === undefined ? '' : ` on ${workspace.ref}`}, and "${from.startNodeId}" runs on them`,
      });
    }
    if (!from.fresh) {
      if (ended.length > 0) {
        bus.emit({
          type: 'stage.log',
          nodeId: from.startNodeId,
          level: 'warn',
          message: `ended ${ended.length} process group(s) left running by the previous runner (${ended.join(', ')}) before running "${from.startNodeId}" again`,
        });
      }
    }
    if (from.fresh) {
      // The initial checkpoint (spec §3.1 INITIALIZE): resumable before the first node completes.
      await bus.flush();
      await store.writeCheckpoint(
        buildCheckpoint({
          scope,
          state: from.state,
          context: from.context,
          currentNode: '',
          nextNode: from.startNodeId,
          nextEdgeIndex: null,
        }),
      );
    }
    const incomingEdge =
      from.incomingEdgeIndex === undefined ? undefined : graph.edges[from.incomingEdgeIndex];
    let end: WalkEnd;
    try {
      end = await walkTopLevel({
        scope,
        state: from.state,
        context: from.context,
        startNodeId: from.startNodeId,
        ...(incomingEdge === undefined ? {} : { incomingEdge }),
        abortSignal: signal,
        stagePrefix: '',
        branchPath: [],
        traceContext: span?.context,
      });
    } catch (error) {
      await bus.flush();
      await workspace?.close().catch(() => undefined);
      throw error;
    }
    await workspace?.close();
    const durationMs = clock.now() - startedMs;

    if (end.kind === 'restart') {
      const newRoot = restartDirectory(from.logsRoot);
      // The run records its continuation by the store's name for it: the sibling directory for the file store, the
      // store's own key on another (`postgres://…#<run id>-restart-1`), not the directory this process calls it (a
      // worker's own run root), so that every machine finds it.
      const continuation = storeFor(newRoot).logsRoot;
      bus.emit({ type: 'pipeline.restarted', newLogsRoot: continuation, targetNodeId: end.targetNodeId });
      await bus.flush();
      if (manifest !== undefined) await store.writeManifest({ ...manifest, restarted_to: continuation });
      // The old directory ends in a state of its own, pointing at the new one: left `running`, it would look
      // interrupted, and resuming it would re-run stages the restarted run already did (issue 19).
      const last = await store.readCheckpoint();
      if (last !== undefined) {
        await store.writeCheckpoint({
          ...last,
          state: 'restarted',
          next_node: null,
          restarted_to: continuation,
        });
      }
      await store.close();
      await unlock(from.logsRoot);
      span?.end('restarted');
      // A restart starts with fresh counters, except the step count: max_steps bounds the whole chain of
      // restarts, or a loop_restart edge that is always taken would restart forever
      // (docs/architecture.md "Loop guards").
      const restartState = new WalkState(nodePositions(graph.nodes.keys()));
      restartState.stepCount = from.state.stepCount;
      return runFrom({
        logsRoot: newRoot,
        context: from.context,
        state: restartState,
        startNodeId: end.targetNodeId,
        fresh: true,
        restartedFrom: store.logsRoot,
        // The continuation's workspace starts from the files the previous leg ended with.
        ...(workspace === undefined ? {} : { workspaceRecord: workspace.record() }),
      });
    }

    const status: RunStatus =
      end.kind === 'success' || end.kind === 'stopped'
        ? 'success'
        : end.kind === 'fail'
          ? 'fail'
          : 'cancelled';
    if (status === 'success') {
      bus.emit({
        type: 'pipeline.completed',
        durationMs,
        artifactCount: artifacts.list().length,
        completedCount: from.state.completedPath.length,
      });
    } else if (end.kind === 'fail') {
      bus.emit({ type: 'pipeline.failed', error: end.reason, durationMs, nodeId: end.lastNodeId });
    } else if (end.kind === 'cancelled') {
      bus.emit({ type: 'pipeline.cancelled', reason: end.reason, durationMs });
    }
    await bus.flush();
    const output = status === 'success' ? runOutput(graph, from.context) : undefined;
    if (output !== undefined) await store.writeOutput?.(output);
    await store.close();
    const failureReason = end.kind === 'fail' || end.kind === 'cancelled' ? end.reason : undefined;
    const budgetStopped = end.kind === 'fail' && end.reason === usage.stop?.reason ? usage.stop : undefined;
    span?.end(status, failureReason);
    return {
      status,
      ...(failureReason === undefined ? {} : { failureReason }),
      ...(budgetStopped === undefined ? {} : { budgetStop: budgetStopped }),
      ...(output === undefined ? {} : { output: secrets.mask(output) }),
      completedNodes: from.state.completedPath,
      nodeOutcomes: from.state.nodeOutcomes,
      context: from.context,
      logsRoot: from.logsRoot,
      durationMs,
    };
  };

  const releaseLocks = async () => {
    for (const logsRoot of [...locks.keys()]) await unlock(logsRoot);
  };
  // The backend releases what it holds for the run (MCP server processes), however the run ended.
  const endBackendRun = async () => {
    const backend = options.backend;
    if (backend?.endRun === undefined) return;
    for (const logsRoot of new Set([initialRoot, ...stores.keys()])) {
      await Promise.resolve()
        .then(() => backend.endRun?.({ logsRoot }))
        .catch(() => undefined);
    }
  };
  const result = Promise.resolve()
    .then(() => body({ storeFor, lock, runFrom }))
    .then(
      async (value) => {
        await endBackendRun();
        await releaseLocks();
        finished = value;
        hub.close();
        return value;
      },
      async (error: unknown) => {
        await endBackendRun();
        for (const store of stores.values()) await Promise.resolve(store.close()).catch(() => undefined);
        // The run is over either way; a failure to release is reported only if nothing else went wrong.
        await releaseLocks().catch(() => undefined);
        hub.close();
        throw error;
      },
    );

  return {
    runId: basename(initialRoot),
    logsRoot: initialRoot,
    events: hub.emitter,
    [Symbol.asyncIterator]: () => hub.iterate(),
    status: () =>
      progress(
        live?.state,
        finished,
        // A stage directory exists only where the run is a directory, not at another store's location.
        live === undefined || !isAbsolute(live.logsRoot)
          ? undefined
          : join(live.logsRoot, live.state.currentStagePath ?? ''),
      ),
    result,
    cancel: (reason) => controller.abort(new Error(reason ?? 'cancelled')),
  };
}

function progress(
  state: WalkState | undefined,
  finished: RunResult | undefined,
  currentStageDir: string | undefined,
): ChildRunStatus {
  const stateName: ChildRunStatus['state'] =
    finished === undefined
      ? 'running'
      : finished.status === 'success'
        ? 'completed'
        : finished.status === 'fail'
          ? 'failed'
          : 'cancelled';
  const completedNodes = state === undefined ? [] : [...state.completedPath];
  const lastNode = completedNodes.at(-1);
  const lastStatus = lastNode === undefined ? undefined : state?.nodeOutcomes[lastNode]?.status;
  return {
    state: stateName,
    ...(state?.currentNodeId === undefined ? {} : { currentNodeId: state.currentNodeId }),
    ...(state?.currentStagePath === undefined ? {} : { currentStagePath: state.currentStagePath }),
    ...(state?.currentStagePath === undefined || currentStageDir === undefined ? {} : { currentStageDir }),
    completedNodes,
    nodeOutcomes: { ...(state?.nodeOutcomes ?? {}) },
    nodeRetries: { ...(state?.nodeRetries ?? {}) },
    ...(lastStatus === undefined ? {} : { lastStatus }),
    ...(finished?.failureReason === undefined ? {} : { failureReason: finished.failureReason }),
  };
}

/**
 * `<dir>-restart-<n>` next to `<dir>` (or the next number after an earlier restart's). A location that is not a path
 * (a child run of another store, `postgres://…#<run>/<stage>/<name>`) gets its last name replaced, unresolved.
 */
function restartDirectory(logsRoot: string): string {
  const name = lastName(logsRoot);
  const match = /^(.*)-restart-(\d+)$/.exec(name);
  const stem = match === null ? name : match[1]!;
  const next = match === null ? 1 : Number(match[2]) + 1;
  return siblingOf(logsRoot, `${stem}-restart-${next}`);
}

/**
 * Where a run of another store than the file store continues, given the `restarted_to` it recorded: the sibling of
 * `logsRoot` with the recorded location's last name (`…#<run id>-restart-1`, or a worker's
 * `/its/root/<run id>-restart-1`), so each process reaches it through its own `createRunStore`. `undefined` when the
 * recorded location names no run (`..`, nothing).
 */
function continuationOf(logsRoot: string, restartedTo: string): string | undefined {
  const name = lastName(restartedTo);
  return name === '' || name === '.' || name === '..' ? undefined : siblingOf(logsRoot, name);
}

/** The last name of a run's location: its directory's name, or what follows the last `/` or `#` of another store's. */
function lastName(location: string): string {
  if (isAbsolute(location)) return basename(location);
  return location.slice(Math.max(location.lastIndexOf('/'), location.lastIndexOf('#')) + 1);
}

/** `location` with its last name (see {@link lastName}) replaced by `name`. */
function siblingOf(location: string, name: string): string {
  return isAbsolute(location)
    ? join(dirname(location), name)
    : `${location.slice(0, location.length - lastName(location).length)}${name}`;
}

function startChild(
  parent: PipelineServicesOptions,
  options: RunChildOptions,
  origin: ChildOrigin,
  parentHub: EventHub,
  parentBasePath: readonly string[],
): ChildRunHandle {
  const signals = [origin.abortSignal];
  if (options.abortSignal !== undefined) signals.push(options.abortSignal);
  // Only the services carry over; the parent's own context, source path and run directory do not.
  // A child run works in its parent stage's directory in place: the parent's stage commit records its changes.
  const {
    context: _parentContext,
    sourcePath: _parentSource,
    logsRoot: _parentRoot,
    workspace: _parentWorkspace,
    ...services
  } = parent as RunPipelineOptions;
  const childStore = origin.store.child(`${origin.stagePath}/${options.name}`);
  const parentStores = parent.createRunStore;
  // The file store's child is the directory `{stageDir}/{name}`; another store's child is wherever its `child()`
  // keeps it, named by the store's own location (`postgres://…#<run>/<stage>/<name>`), which is no path to resolve.
  const childRoot = parentStores === undefined ? resolve(childStore.logsRoot) : childStore.logsRoot;
  /** What precedes `{name}` in `childRoot`, and its loop_restart continuations' locations. */
  const siblingPrefix = childRoot.slice(0, childRoot.length - options.name.length);
  const childOptions: RunPipelineOptions = {
    ...services,
    graph: options.graph,
    logsRoot: childRoot,
    abortSignal: AbortSignal.any(signals),
    onEvent: (event) => parentHub.deliver(event),
    ...(options.context === undefined ? {} : { context: options.context }),
    ...(options.workdir === undefined ? {} : { workdir: options.workdir }),
    // The file store's child is the directory `{stageDir}/{name}`, which the default file store opens anyway (with the
    // run's process-group file); another store keeps the child, and its loop_restart continuations
    // (`{name}-restart-{n}`, see restartDirectory), where its `child()` says.
    ...(parentStores === undefined
      ? {}
      : {
          createRunStore: (root: string) => {
            if (root === childRoot) return childStore;
            const restarted = root.slice(siblingPrefix.length);
            return root.startsWith(siblingPrefix) &&
              restarted.startsWith(`${options.name}-restart-`) &&
              /^\d+$/.test(restarted.slice(`${options.name}-restart-`.length))
              ? origin.store.child(`${origin.stagePath}/${restarted}`)
              : parentStores(root);
          },
        }),
  };
  const basePath = [...parentBasePath, ...origin.branchPath, `child:${origin.nodeId}`];
  const run = launch(
    childOptions,
    async (session) => {
      const context = initialContext(options.graph, options.context);
      const start = options.graph.startNode;
      if (start === undefined) throw new Error(`Child graph "${options.graph.id}" has no single start node.`);
      return runFromStart(session, {
        logsRoot: childRoot,
        graph: options.graph,
        context,
        startNodeId: start.id,
        values: options.context,
      });
    },
    {
      basePath,
      logsRoot: childRoot,
      parentUsage: origin.usage,
      ...(origin.traceContext === undefined ? {} : { traceContext: origin.traceContext }),
    },
  );
  return {
    runId: run.runId,
    logsRoot: run.logsRoot,
    store: childStore,
    status: run.status,
    result: run.result,
    cancel: run.cancel,
  };
}

function budgetOf(maxBudgetUsd: number | undefined, maxTokens: number | undefined): RunBudget {
  return {
    ...(maxBudgetUsd === undefined ? {} : { maxBudgetUsd }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
  };
}
