/**
 * The public entry points of the engine: `startPipeline` / `runPipeline` (spec §3.1–3.2) and
 * `startResumedPipeline` / `resumePipeline` (spec §5.3), plus `loop_restart` and child pipelines.
 */

import { basename, dirname, join, resolve } from 'node:path';
import type { Graph } from '@attractor/graph';
import type { EventEmitter } from 'eventemitter3';
import type { ArtifactStore } from './artifact-store.js';
import type { RunBudget } from './check-budget.js';
import { type Clock, systemClock } from './clock.js';
import type { CodergenBackend } from './codergen-backend.js';
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
import { createNodeDictionary } from './node-dictionary.js';
import type { Outcome } from './outcome.js';
import type { PipelineEvent } from './pipeline-event.js';
import type { RunResult, RunStatus } from './run-result.js';
import type { ChildOrigin, RunScope } from './run-scope.js';
import type { Checkpoint, RunManifest, RunStore } from './run-store.js';
import { statusFileToOutcome } from './status-file.js';
import { buildCheckpoint, type WalkEnd, walkGraph } from './walk-graph.js';
import { WalkState } from './walk-state.js';

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
  /** Overrides the graph's `max_steps` (node executions per run, default 1000). */
  readonly maxSteps?: number;
  /** Overrides the graph's `max_budget_usd`: no LLM stage starts once LLM stages cost this many USD. */
  readonly maxBudgetUsd?: number;
  /** Overrides the graph's `max_tokens`: no LLM stage starts once LLM stages used this many tokens. */
  readonly maxTokens?: number;
  /** fsync checkpoints before renaming them (power-loss safety; costs ~0.3 ms per node). Default: false. */
  readonly fsync?: boolean;
  /** Known secret values (API keys) to scrub from events and status files, in addition to secret-named keys. */
  readonly secretValues?: readonly string[];
  /** Persistence. Default: {@link createFileRunStore} on the run directory. */
  readonly createRunStore?: (logsRoot: string) => RunStore;
  /** Size above which artifacts are written to disk, in bytes. Default: 102400. */
  readonly artifactThresholdBytes?: number;
}

/** Options of {@link runPipeline}. */
export interface RunPipelineOptions extends PipelineServicesOptions {
  /** The run directory (spec §5.6); created if missing. See {@link defaultLogsRoot}. */
  readonly logsRoot: string;
  /** Initial context values, applied after the `graph.*` mirror. Values must be JSON. */
  readonly context?: Readonly<Record<string, JsonValue>>;
  /** The DOT file the graph came from, recorded in `manifest.json`. Default: `graph.filename`. */
  readonly sourcePath?: string;
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
 * The default run directory (DESIGN.md "Run directory"): `<root>/<UTC timestamp>-<graph name>`, e.g.
 * `.attractor/runs/2026-01-31T12-00-00Z-demo`. Pure: pass the time.
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
    const context = new Context();
    mirrorGraphAttributes(options.graph, context);
    if (options.context !== undefined) context.applyUpdates(options.context);
    const start = options.graph.startNode;
    if (start === undefined) {
      throw new Error(
        `Graph "${options.graph.id}" has ${options.graph.startNodes.length} start nodes; exactly one is required (shape=Mdiamond or id "start"). Run validate() first.`,
      );
    }
    if (
      (await session
        .storeFor(logsRoot)
        .readCheckpoint()
        .catch(() => 'corrupt')) !== undefined
    ) {
      throw new RunDirectoryInUseError({ logsRoot });
    }
    return session.runFrom({ logsRoot, context, state: new WalkState(), startNodeId: start.id, fresh: true });
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
 * Resumes a run from its checkpoint (spec §5.3, DESIGN.md "Resume"): restores the context, outcomes, visit, retry
 * and gate counters, and continues at the checkpoint's `next_node` (or `from`). A run that ended in FAIL re-runs
 * the failed node. The first stage after the resume gets `summary:high` instead of `full` fidelity.
 *
 * The result's `completedNodes` covers the whole run (read back from `events.jsonl`).
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
    const logsRoot = resolve(options.logsRoot);
    const store = session.storeFor(logsRoot);
    const checkpoint = await store.readCheckpoint();
    const manifest = await store.readManifest();
    if (checkpoint === undefined || manifest === undefined) {
      throw new ResumeError({
        reason: 'no_checkpoint',
        logsRoot,
        message: `Cannot resume ${logsRoot}: it has no ${checkpoint === undefined ? 'checkpoint.json' : 'manifest.json'}. Start a new run instead.`,
      });
    }
    const sha = graphFingerprint(options.graph);
    if (checkpoint.graph_sha256 !== sha) {
      throw new ResumeError({
        reason: 'graph_mismatch',
        logsRoot,
        message: `Cannot resume ${logsRoot}: it was run with a different graph (sha256 ${checkpoint.graph_sha256.slice(0, 12)}…${manifest.source_path === undefined ? '' : ` from ${manifest.source_path}`}), not this one (sha256 ${sha.slice(0, 12)}…). Resume with the original DOT file, or start a new run.`,
      });
    }
    const from = options.from;
    if (from === undefined && checkpoint.state === 'success') {
      throw new ResumeError({
        reason: 'already_completed',
        logsRoot,
        message: `Cannot resume ${logsRoot}: the run already completed successfully. Pass \`from\` (CLI --from <node>) to re-run from a node.`,
      });
    }
    const startNodeId = from ?? checkpoint.next_node;
    if (startNodeId === null || options.graph.node(startNodeId) === undefined) {
      throw new ResumeError({
        reason: 'unknown_node',
        logsRoot,
        message: `Cannot resume ${logsRoot}: node "${startNodeId ?? ''}" is not in graph "${options.graph.id}".`,
      });
    }
    const events = await store.readEvents();
    const history = historyFromEvents(events, checkpoint);
    for (const nodeId of Object.keys(history.outcomes)) {
      if (checkpoint.node_outcomes[nodeId] !== undefined) continue;
      // The stage directory holds the latest visit's full outcome (spec §11.3); the event only a summary.
      const written = await store.readStageStatus(nodeId).catch(() => undefined);
      if (written !== undefined) history.outcomes[nodeId] = statusFileToOutcome(written);
    }
    const lastSeq = events.reduce((max, event) => Math.max(max, event.seq), checkpoint.last_seq);
    const state = WalkState.fromCheckpoint(checkpoint, history);
    const context = new Context(checkpoint.context, checkpoint.logs);
    const edge =
      from === undefined && checkpoint.next_edge_index !== null
        ? options.graph.edges[checkpoint.next_edge_index]
        : undefined;
    return session.runFrom({
      logsRoot,
      context,
      state,
      startNodeId,
      fresh: false,
      lastSeq,
      manifest,
      ...(edge === undefined ? {} : { incomingEdgeIndex: edge.index }),
    });
  });
}

/** The top-level history up to the checkpoint, rebuilt from the event log: path, visit counts, latest outcomes. */
function historyFromEvents(
  events: readonly PipelineEvent[],
  checkpoint: Checkpoint,
): { path: string[]; visits: Record<string, number>; outcomes: Record<string, Outcome> } {
  const path: string[] = [];
  const visits = createNodeDictionary<number>();
  const outcomes = createNodeDictionary<Outcome>();
  for (const event of events) {
    if (event.type !== 'stage.completed' || event.branchPath !== undefined) continue;
    if (event.runId !== checkpoint.run_id || event.seq > checkpoint.last_seq) continue;
    path.push(event.nodeId);
    visits[event.nodeId] = Math.max(visits[event.nodeId] ?? 0, event.visit);
    if (event.status === 'skipped') continue;
    outcomes[event.nodeId] = {
      status: event.status,
      ...(event.preferredLabel === undefined ? {} : { preferredLabel: event.preferredLabel }),
      ...(event.notes === undefined ? {} : { notes: event.notes }),
      ...(event.failureReason === undefined ? {} : { failureReason: event.failureReason }),
    };
  }
  return { path, visits, outcomes };
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
  /** A new run directory (write the manifest) rather than a resume. */
  readonly fresh: boolean;
  readonly lastSeq?: number;
  readonly manifest?: RunManifest;
  readonly restartedFrom?: string;
}

interface Session {
  storeFor(logsRoot: string): RunStore;
  runFrom(options: RunFromOptions): Promise<RunResult>;
}

interface LaunchExtras {
  /** Events of a child pipeline also go to its parent's consumers, with this branch path prefix. */
  readonly basePath?: readonly string[];
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
  const hub = new EventHub(options.onEvent);
  const stores = new Map<string, RunStore>();
  let live: { state: WalkState; logsRoot: string; runId: string } | undefined;
  let finished: RunResult | undefined;
  const initialRoot = resolve((options as { logsRoot?: string }).logsRoot ?? '.');

  const storeFor = (logsRoot: string): RunStore => {
    let store = stores.get(logsRoot);
    if (store === undefined) {
      store = (
        options.createRunStore ??
        ((root) => createFileRunStore({ logsRoot: root, fsync: options.fsync ?? false }))
      )(logsRoot);
      stores.set(logsRoot, store);
    }
    return store;
  };

  const runFrom = async (from: RunFromOptions): Promise<RunResult> => {
    const startedMs = clock.now();
    const store = storeFor(from.logsRoot);
    const runId = basename(from.logsRoot);
    const graph = options.graph;
    const graphSha256 = graphFingerprint(graph);
    const workdir = resolve(options.workdir ?? process.cwd());
    const bus = new EventBus({
      runId,
      clock,
      hub,
      store,
      lastSeq: from.lastSeq ?? 0,
      ...(options.secretValues === undefined ? {} : { secretValues: options.secretValues }),
      ...(extras.basePath === undefined ? {} : { basePath: extras.basePath }),
    });
    let manifest = from.manifest;
    if (from.fresh) {
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
        workdir,
        ...(from.restartedFrom === undefined ? {} : { restarted_from: from.restartedFrom }),
      };
      await store.writeManifest(manifest);
    }
    const artifacts: ArtifactStore = createArtifactStore({
      baseDir: from.logsRoot,
      clock,
      ...(options.artifactThresholdBytes === undefined
        ? {}
        : { thresholdBytes: options.artifactThresholdBytes }),
    });
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
      graphSha256,
      secretValues: options.secretValues ?? [],
      exitNodeIds: new Set(graph.exitNodes.map((node) => node.id)),
      goalGateIds: new Set([...graph.nodes.values()].filter((node) => node.goalGate).map((node) => node.id)),
      maxSteps: options.maxSteps ?? graph.settings.maxSteps,
      budget: budgetOf(
        options.maxBudgetUsd ?? graph.settings.maxBudgetUsd,
        options.maxTokens ?? graph.settings.maxTokens,
      ),
      startChild: (childOptions, origin) =>
        startChild(options, childOptions, origin, hub, extras.basePath ?? []),
    };
    live = { state: from.state, logsRoot: from.logsRoot, runId };
    bus.emit({
      type: 'pipeline.started',
      name: graph.id,
      goal: graph.settings.goal,
      logsRoot: from.logsRoot,
      resumed: !from.fresh,
      startNodeId: from.startNodeId,
    });
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
      end = await walkGraph({
        scope,
        state: from.state,
        context: from.context,
        startNodeId: from.startNodeId,
        ...(incomingEdge === undefined ? {} : { incomingEdge }),
        abortSignal: signal,
        stagePrefix: '',
        branchPath: [],
        topLevel: true,
      });
    } catch (error) {
      await bus.flush();
      throw error;
    }
    const durationMs = clock.now() - startedMs;

    if (end.kind === 'restart') {
      const newRoot = restartDirectory(from.logsRoot);
      bus.emit({ type: 'pipeline.restarted', newLogsRoot: newRoot, targetNodeId: end.targetNodeId });
      await bus.flush();
      if (manifest !== undefined) await store.writeManifest({ ...manifest, restarted_to: newRoot });
      await store.close();
      // A restart starts with fresh counters, except the step count: max_steps bounds the whole chain of
      // restarts, or a loop_restart edge that is always taken would restart forever (DESIGN.md "Loop guards").
      const restartState = new WalkState();
      restartState.stepCount = from.state.stepCount;
      return runFrom({
        logsRoot: newRoot,
        context: from.context,
        state: restartState,
        startNodeId: end.targetNodeId,
        fresh: true,
        restartedFrom: from.logsRoot,
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
    await store.close();
    const failureReason = end.kind === 'fail' || end.kind === 'cancelled' ? end.reason : undefined;
    return {
      status,
      ...(failureReason === undefined ? {} : { failureReason }),
      completedNodes: from.state.completedPath,
      nodeOutcomes: from.state.nodeOutcomes,
      context: from.context,
      logsRoot: from.logsRoot,
      durationMs,
    };
  };

  const result = Promise.resolve()
    .then(() => body({ storeFor, runFrom }))
    .then(
      (value) => {
        finished = value;
        hub.close();
        return value;
      },
      async (error: unknown) => {
        for (const store of stores.values()) await Promise.resolve(store.close()).catch(() => undefined);
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
        live === undefined ? undefined : join(live.logsRoot, live.state.currentStagePath ?? ''),
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
    ...(state?.currentStagePath === undefined || currentStageDir === undefined ? {} : { currentStageDir }),
    completedNodes,
    nodeOutcomes: { ...(state?.nodeOutcomes ?? {}) },
    nodeRetries: { ...(state?.nodeRetries ?? {}) },
    ...(lastStatus === undefined ? {} : { lastStatus }),
    ...(finished?.failureReason === undefined ? {} : { failureReason: finished.failureReason }),
  };
}

/** `<dir>-restart-<n>` next to `<dir>` (or the next number after an earlier restart's). */
function restartDirectory(logsRoot: string): string {
  const name = basename(logsRoot);
  const match = /^(.*)-restart-(\d+)$/.exec(name);
  const stem = match === null ? name : match[1]!;
  const next = match === null ? 1 : Number(match[2]) + 1;
  return join(dirname(logsRoot), `${stem}-restart-${next}`);
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
  const {
    context: _parentContext,
    sourcePath: _parentSource,
    logsRoot: _parentRoot,
    ...services
  } = parent as RunPipelineOptions;
  const childOptions: RunPipelineOptions = {
    ...services,
    graph: options.graph,
    logsRoot: options.logsRoot,
    abortSignal: AbortSignal.any(signals),
    onEvent: (event) => parentHub.deliver(event),
    ...(options.context === undefined ? {} : { context: options.context }),
    ...(options.workdir === undefined ? {} : { workdir: options.workdir }),
  };
  const basePath = [...parentBasePath, ...origin.branchPath, `child:${origin.nodeId}`];
  const run = launch(
    childOptions,
    async (session) => {
      const logsRoot = resolve(options.logsRoot);
      const context = new Context();
      mirrorGraphAttributes(options.graph, context);
      if (options.context !== undefined) context.applyUpdates(options.context);
      const start = options.graph.startNode;
      if (start === undefined) throw new Error(`Child graph "${options.graph.id}" has no single start node.`);
      return session.runFrom({
        logsRoot,
        context,
        state: new WalkState(),
        startNodeId: start.id,
        fresh: true,
      });
    },
    { basePath },
  );
  return {
    runId: run.runId,
    logsRoot: run.logsRoot,
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
