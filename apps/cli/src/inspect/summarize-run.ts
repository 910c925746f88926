import { inputsOfContext, type JsonValue, type OutcomeStatus, runDurationMs } from '@attractor/engine';
import { runIdOfLocation } from '@attractor/engine/internal';
import type { RunDirectory } from './read-run-directory.js';

/**
 * Where a stage stands: its last outcome, `running` (started, not finished, run live), `waiting` (the human gate a
 * suspended run waits at), `cancelled` (the run was cancelled in it, e.g. its server stopped; a resume runs it again)
 * or `interrupted` (the run's process died in it).
 */
export type StageState = OutcomeStatus | 'running' | 'waiting' | 'cancelled' | 'interrupted';

/**
 * Where a run stands. `waiting`: a worker suspended it at a human gate (`pipeline.suspended`) until the answer or
 * the gate's deadline. `interrupted`: its checkpoint says running but the process is gone (killed). `restarted`: a
 * `loop_restart` edge continued the run in another directory (`restartedTo`). `dead`: the run queue dead-lettered it
 * (see `RunDirectory.deadLetter`; `attractor runs` lists it so too).
 */
export type RunState =
  | 'running'
  | 'waiting'
  | 'success'
  | 'fail'
  | 'cancelled'
  | 'interrupted'
  | 'restarted'
  | 'dead';

/** One stage (node, within its branch) of a run. */
export interface StageSummary {
  readonly nodeId: string;
  /** Branch ids from outermost to innermost for stages inside parallel branches or child pipelines. */
  readonly branchPath: readonly string[];
  readonly label: string;
  readonly handlerType: string;
  /** Entries into the node; a visit the run was stopped in and resumed (a gate waiting for its answer) is one. */
  readonly visits: number;
  /** Attempts over all visits (retries included; an attempt the run was stopped in and resumed counts once). */
  readonly attempts: number;
  readonly state: StageState;
  /** Sum of the completed visits' durations, in milliseconds. */
  readonly durationMs: number;
  /** Tokens reported by `agent.usage` events. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the provider's cache (part of `inputTokens`). */
  readonly cachedInputTokens: number;
  /** Reasoning tokens (part of `outputTokens`). */
  readonly reasoningTokens: number;
  /** USD of the model calls with a known price. */
  readonly costUsd: number;
  /** True when a model call had no price (then `costUsd` is a lower bound). */
  readonly costUnknown: boolean;
  /** The latest failure reason, when the latest outcome failed or an attempt failed. */
  readonly failureReason?: string;
  /** The notes of the stage's latest outcome (`Outcome.notes`, as its `status.json` has them), in full. */
  readonly notes?: string;
}

/** What `attractor inspect` shows. */
export interface RunSummary {
  readonly runId: string;
  readonly logsRoot: string;
  readonly graphName: string;
  readonly goal: string;
  readonly sourcePath?: string;
  readonly workdir: string;
  /** ISO-8601. */
  readonly startedAt: string;
  readonly state: RunState;
  /** Whether a live process executes the run now (`attractor run`, a server, a worker holding its lock). */
  readonly live: boolean;
  /**
   * With state `restarted`: where a `loop_restart` edge continued the run: its run directory, or, for a run read
   * by id from a run store (`logsRoot` `<store>#<run id>`), the continuation's run id (`<run id>-restart-1`), not
   * the location the runner recorded (a worker's own directory, or its name for the store).
   */
  readonly restartedTo?: string;
  /**
   * For a fork (`attractor fork`, the server's fork): the source run, its directory, and the completed stage (node
   * and visit) the fork started after; from the manifest's `forked_from`.
   */
  readonly forkedFrom?: {
    readonly runId: string;
    readonly logsRoot: string;
    readonly node: string;
    readonly visit: number;
  };
  /** For a fork: the nodes it inherited completed from the source run (they ran there, not here), in order. */
  readonly inheritedStages?: readonly string[];
  readonly failureReason?: string;
  /** The node a resume continues at. */
  readonly nextNode?: string;
  /** Top-level node executions in order (a node visited twice appears twice). */
  readonly route: readonly string[];
  readonly stages: readonly StageSummary[];
  /** When the run ended (ISO-8601: its final `pipeline.completed|failed|cancelled`), for a run that ended. */
  readonly endedAt?: string;
  /**
   * The run's wall time in milliseconds, as the web UI shows it: from its start to its end, to now while it runs or
   * waits at a gate, or to its last event when its process died. Time waiting at gates, suspended or stopped counts.
   */
  readonly wallTimeMs: number;
  /**
   * Milliseconds the run executed: the wall time of its invocations (run and resumes, engine `runDurationMs`), time
   * suspended or stopped between them not counted.
   */
  readonly durationMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly reasoningTokens: number;
  /** USD of the model calls with a known price. */
  readonly costUsd: number;
  /** True when a model call had no price. */
  readonly costUnknown: boolean;
  /** The run's inputs (README "Typed data"), by name; absent when it was given none. */
  readonly inputs?: Readonly<Record<string, JsonValue>>;
  /** The run's result (`output.json`), when the graph declares `outputs` and the run succeeded. */
  readonly output?: Readonly<Record<string, JsonValue>>;
}

interface MutableStage {
  nodeId: string;
  branchPath: readonly string[];
  label: string;
  handlerType: string;
  visits: number;
  attempts: number;
  state: StageState;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  costUsd: number;
  costUnknown: boolean;
  failureReason?: string;
  notes?: string;
  open: boolean;
  /** Started and never completed when the run stopped: its next `stage.started` goes on with the same visit. */
  cutOff: boolean;
}

/**
 * Folds a run directory's events and checkpoint into per-stage rows and the route (pure).
 * `live` says whether a process is still running the pipeline (then an unfinished stage is `running`, else
 * `interrupted`). `now` (milliseconds since the epoch; default `Date.now`) ends the wall time of a run still going.
 */
export function summarizeRun(
  run: RunDirectory,
  options: { readonly live?: boolean; readonly now?: () => number } = {},
): RunSummary {
  const stages = new Map<string, MutableStage>();
  const route: string[] = [];
  let ended: { state: RunState; reason?: string; timestamp: string } | undefined;
  /** The gate a worker suspended the run at (`pipeline.suspended`), until the run resumes. */
  let suspendedAt: string | undefined;
  // A child pipeline's own events.jsonl carries its parent's branch path (`child:<node>`) on every event: paths
  // are taken relative to the path of the run's first `pipeline.started`.
  const first = run.events.find((event) => event.type === 'pipeline.started');
  const base = first?.branchPath ?? [];
  const pathOf = (event: { branchPath?: readonly string[] }): readonly string[] =>
    (event.branchPath ?? []).slice(base.length);
  const isTop = (event: { branchPath?: readonly string[] }): boolean => pathOf(event).length === 0;
  const stageOf = (event: { nodeId: string; branchPath?: readonly string[] }): MutableStage => {
    const branchPath = pathOf(event);
    const key = `${branchPath.join('\u0000')}\u0001${event.nodeId}`;
    let stage = stages.get(key);
    if (stage === undefined) {
      stage = {
        nodeId: event.nodeId,
        branchPath,
        label: event.nodeId,
        handlerType: '',
        visits: 0,
        attempts: 0,
        state: 'running',
        durationMs: 0,
        inputTokens: 0,
        outputTokens: 0,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        costUsd: 0,
        costUnknown: false,
        open: false,
        cutOff: false,
      };
      stages.set(key, stage);
    }
    return stage;
  };
  for (const event of run.events) {
    switch (event.type) {
      case 'pipeline.started':
        ended = undefined;
        if (isTop(event)) {
          suspendedAt = undefined;
          // A resume: the stages the run stopped in (a gate waiting for its answer) start again, in the same visit.
          for (const stage of stages.values()) if (stage.open) stage.cutOff = true;
        }
        break;
      case 'pipeline.suspended':
        if (isTop(event)) suspendedAt = event.stage;
        break;
      case 'stage.started': {
        const stage = stageOf(event);
        stage.label = event.label;
        stage.handlerType = event.handlerType;
        if (stage.cutOff) {
          // The visit the run stopped in goes on: neither another visit nor another attempt.
          stage.cutOff = false;
        } else {
          stage.visits = Math.max(stage.visits, event.visit);
          stage.attempts += 1;
        }
        stage.open = true;
        break;
      }
      case 'stage.failed': {
        stageOf(event).failureReason = event.error;
        break;
      }
      case 'stage.completed': {
        const stage = stageOf(event);
        stage.state = event.status;
        stage.durationMs += event.durationMs;
        stage.open = false;
        if (event.failureReason !== undefined) stage.failureReason = event.failureReason;
        else if (event.status === 'success' || event.status === 'partial_success') delete stage.failureReason;
        if (event.notes !== undefined && event.notes.trim() !== '') stage.notes = event.notes;
        else delete stage.notes;
        if (isTop(event)) route.push(event.nodeId);
        break;
      }
      case 'agent.usage': {
        const stage = stageOf(event);
        stage.inputTokens += event.inputTokens;
        stage.outputTokens += event.outputTokens;
        stage.cachedInputTokens += event.cachedInputTokens ?? 0;
        stage.reasoningTokens += event.reasoningTokens ?? 0;
        // A call without a price (or from a backend that prices nothing) makes the cost unknown, never 0.
        if (typeof event.costUsd === 'number') stage.costUsd += event.costUsd;
        else stage.costUnknown = true;
        break;
      }
      case 'pipeline.completed':
        if (isTop(event)) ended = { state: 'success', timestamp: event.timestamp };
        break;
      case 'pipeline.failed':
        if (isTop(event)) ended = { state: 'fail', reason: event.error, timestamp: event.timestamp };
        break;
      case 'pipeline.cancelled':
        if (isTop(event)) ended = { state: 'cancelled', reason: event.reason, timestamp: event.timestamp };
        break;
      default:
        break;
    }
  }
  // A live process runs it (the caller says so, or the run index's lock holder is alive); a log that ends suspended at
  // a gate has none (a worker's run waiting for its answer).
  const liveState = options.live === true ? 'running' : suspendedAt === undefined ? run.liveState : undefined;
  const live = liveState !== undefined;
  const checkpoint = run.checkpoint;
  let state: RunState;
  let failureReason: string | undefined;
  let endedAt: string | undefined;
  if (ended !== undefined) {
    state = ended.state;
    failureReason = ended.reason;
    endedAt = ended.timestamp;
  } else if (checkpoint?.state === 'restarted') {
    state = 'restarted';
  } else if (checkpoint !== undefined && checkpoint.state !== 'running') {
    state = checkpoint.state;
    failureReason = checkpoint.failure_reason;
    endedAt = checkpoint.timestamp;
  } else {
    state = liveState ?? (suspendedAt !== undefined ? 'waiting' : 'interrupted');
  }
  if (run.deadLetter !== undefined) {
    state = 'dead';
    failureReason = run.deadLetter.reason;
  }
  const atGate = (stage: { readonly nodeId: string; readonly branchPath: readonly string[] }) =>
    state === 'waiting' && stage.branchPath.length === 0 && stage.nodeId === suspendedAt;
  // A stage the run stopped in: as the run ended (a cancel, a stopped server: `cancelled`, as the run's log and every
  // other view say), or, with no end in the log, by whether its process is still there.
  const openStageState = (stage: {
    readonly nodeId: string;
    readonly branchPath: readonly string[];
    readonly handlerType: string;
  }) =>
    live
      ? liveState === 'waiting' && stage.handlerType === 'wait.human'
        ? 'waiting'
        : 'running'
      : atGate(stage)
        ? 'waiting'
        : state === 'cancelled'
          ? 'cancelled'
          : 'interrupted';
  const rows: StageSummary[] = [...stages.values()].map(({ open, cutOff: _cutOff, ...stage }) => ({
    ...stage,
    state: open ? openStageState(stage) : stage.state,
  }));
  const nextNode = checkpoint?.next_node ?? undefined;
  const origin = run.manifest.forked_from;
  // What the fork started with: everything completed up to and including the stage it was taken after, also the
  // stages it ran again itself (a loop back to them). Without its first checkpoint (history lost), the stages of its
  // latest checkpoint that it did not run itself.
  const ranHere = new Set(rows.filter((stage) => stage.branchPath.length === 0).map((stage) => stage.nodeId));
  const inherited =
    origin === undefined
      ? undefined
      : run.forkStart !== undefined
        ? [...new Set(run.forkStart.completed_nodes)]
        : [...new Set(checkpoint?.completed_nodes ?? [])].filter((node) => !ranHere.has(node));
  const inputs = inputsOfContext(run.manifest.initial_context ?? {});
  const startedMs = Date.parse(run.manifest.started_at);
  // To its end; while it goes on, to now; a run whose process died (or that continued elsewhere) to its last event.
  const wallEndMs =
    endedAt !== undefined
      ? Date.parse(endedAt)
      : state === 'running' || state === 'waiting'
        ? (options.now ?? Date.now)()
        : Date.parse(run.events.at(-1)?.timestamp ?? run.manifest.started_at);
  return {
    runId: run.manifest.run_id,
    logsRoot: run.logsRoot,
    graphName: run.manifest.graph_name,
    goal: run.manifest.goal,
    ...(run.manifest.source_path === undefined ? {} : { sourcePath: run.manifest.source_path }),
    workdir: run.manifest.workdir,
    startedAt: run.manifest.started_at,
    state,
    live,
    ...(checkpoint?.restarted_to === undefined
      ? {}
      : {
          restartedTo: run.logsRoot.includes('#')
            ? runIdOfLocation(checkpoint.restarted_to)
            : checkpoint.restarted_to,
        }),
    ...(origin === undefined
      ? {}
      : {
          forkedFrom: {
            runId: origin.run_id,
            logsRoot: origin.logs_root,
            node: origin.node,
            visit: origin.visit,
          },
          inheritedStages: inherited ?? [],
        }),
    ...(failureReason === undefined ? {} : { failureReason }),
    ...(nextNode === undefined || state === 'success' ? {} : { nextNode }),
    ...(Object.keys(inputs).length === 0 ? {} : { inputs }),
    ...(run.output === undefined ? {} : { output: run.output }),
    route,
    stages: rows,
    ...(endedAt === undefined ? {} : { endedAt }),
    wallTimeMs: Math.max(0, wallEndMs - startedMs),
    durationMs: runDurationMs(run.events),
    inputTokens: rows.reduce((total, stage) => total + stage.inputTokens, 0),
    outputTokens: rows.reduce((total, stage) => total + stage.outputTokens, 0),
    cachedInputTokens: rows.reduce((total, stage) => total + stage.cachedInputTokens, 0),
    reasoningTokens: rows.reduce((total, stage) => total + stage.reasoningTokens, 0),
    costUsd: rows.reduce((total, stage) => total + stage.costUsd, 0),
    costUnknown: rows.some((stage) => stage.costUnknown),
  };
}

/** The latest state of each node of the top-level graph (parallel branches included, child pipelines not; a fork's inherited stages as `success`). */
export function nodeStates(summary: RunSummary): Map<string, StageState> {
  const states = new Map<string, StageState>();
  // A fork's inherited stages completed in the source run: they count as succeeded here too.
  for (const node of summary.inheritedStages ?? []) states.set(node, 'success');
  for (const stage of summary.stages) {
    if (stage.branchPath.some((segment) => segment.startsWith('child:'))) continue;
    states.set(stage.nodeId, stage.state);
  }
  return states;
}
