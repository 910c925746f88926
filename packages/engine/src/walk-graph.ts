/**
 * The run loop of spec §3.2 as two plain walkers: {@link walkTopLevel} (checkpoints, goal gates at the exit,
 * `loop_restart`) and {@link walkBranch} (`runtime.runBranch`: stops at the join, the exit or `stopBefore`, and
 * writes no checkpoint). Both ask the pure decision core (decide.ts) what each event means and apply its answer;
 * {@link runNode} executes one node for both.
 */
import { findJoinNode, type GraphEdge, type GraphNode } from '@attractor/graph';
import type { Context as TraceContext } from '@opentelemetry/api';
import { buildPreamble } from './build-preamble.js';
import type { Context } from './context.js';
import { type Decision, type DecisionRules, decide, type WalkEnd, type WalkEvent } from './decide.js';
import { executeStage } from './execute-stage.js';
import type { BranchResult, RunBranchOptions, StageFidelity } from './handler-runtime.js';
import type { Outcome } from './outcome.js';
import { resolveFidelity, resolveThreadKey } from './resolve-fidelity.js';
import type { RunScope } from './run-scope.js';
import { CHECKPOINT_VERSION, type Checkpoint } from './run-store.js';
import type { StageCommitRequest } from './run-workspace.js';
import { outcomeToStatusFile } from './status-file.js';
import { LEGACY_AGENT_COST_KEY, usageTotalsToContext } from './usage-totals.js';
import { CHECKPOINT_LOG_LIMIT, WalkState } from './walk-state.js';
import { yieldWhenBusy } from './yield-when-busy.js';

export type { WalkEnd } from './decide.js';

/** What both walkers take. Internal to the engine. */
export interface WalkOptions {
  readonly scope: RunScope;
  readonly state: WalkState;
  readonly context: Context;
  readonly startNodeId: string;
  /** The edge the walk arrives at `startNodeId` by, if any. */
  readonly incomingEdge?: GraphEdge;
  readonly abortSignal: AbortSignal;
  /** Prefix of stage directory paths relative to the run directory (`''` at the top level). */
  readonly stagePrefix: string;
  readonly branchPath: readonly string[];
  /** The parent of the walk's stage spans (the run's span, or the stage that runs the branch), with telemetry. */
  readonly traceContext?: TraceContext | undefined;
}

/** Options of {@link walkBranch}. Internal to the engine. */
export interface BranchWalkOptions extends WalkOptions {
  /** Stop (without executing) before a node for which this returns true. */
  readonly stopBefore?: (node: GraphNode) => boolean;
}

/** Where a walk stands between nodes. */
interface Position {
  nodeId: string;
  incoming: GraphEdge | undefined;
  /** The node executed last (`lastNodeId` of the end). */
  lastId: string;
  lastOutcome: Outcome | undefined;
}

/**
 * Walks the run from `startNodeId` to its end: writes the checkpoint after every node and when the walk stops,
 * checks goal gates at the exit and ends at a `loop_restart` edge. Never rejects for handler or routing faults.
 */
export async function walkTopLevel(options: WalkOptions): Promise<WalkEnd> {
  const { scope, state } = options;
  const at = startPosition(options);
  const rules = walkRules(options, at);
  const ended = async (end: WalkEnd, currentNode: string): Promise<WalkEnd> => {
    await writeCheckpoint(options, currentNode, null, null, end);
    return end;
  };
  while (true) {
    if (options.abortSignal.aborted) return cancelled(options, at);
    if (scope.exitNodeIds.has(at.nodeId)) {
      const gates = apply(options, decide(state, { type: 'exit.reached', nodeId: at.nodeId }, rules));
      if (gates.kind === 'end') return ended(gates.end, at.lastId);
      if (gates.kind === 'go') {
        at.nodeId = gates.nodeId;
        at.incoming = undefined;
        continue;
      }
    } else {
      const arrival = apply(options, decide(state, { type: 'node.reached', nodeId: at.nodeId }, rules));
      if (arrival.kind === 'end') return ended(arrival.end, at.lastId);
    }
    const ran = await runNode(options, at, rules);
    await yieldWhenBusy();
    if (ran.kind === 'cancelled') return cancelled(options, at, ran.reason);
    const next = apply(options, ran.decision);
    if (next.kind === 'end') return ended(next.end, at.nodeId);
    await writeCheckpoint(
      options,
      at.nodeId,
      next.nodeId,
      next.kind === 'go' ? (next.edge?.index ?? null) : null,
    );
    if (next.kind === 'go' && next.edge?.loopRestart === true) {
      return { kind: 'restart', targetNodeId: next.nodeId, lastNodeId: at.nodeId };
    }
    at.nodeId = next.nodeId;
    at.incoming = next.kind === 'go' ? next.edge : undefined;
  }
}

/**
 * Walks one parallel branch from `startNodeId` until it reaches a terminal node or a node `stopBefore` names
 * (without executing it), or a dead end. Writes no checkpoint; a `loop_restart` edge is followed like any edge.
 */
export async function walkBranch(options: BranchWalkOptions): Promise<WalkEnd> {
  const { scope, state } = options;
  const at = startPosition(options);
  const rules = walkRules(options, at);
  while (true) {
    if (options.abortSignal.aborted) return cancelled(options, at);
    const node = scope.graph.node(at.nodeId);
    // A branch stops before the exit; the parent walk executes it (and checks goal gates) once.
    if (node !== undefined && (options.stopBefore?.(node) === true || scope.exitNodeIds.has(node.id))) {
      return {
        kind: 'stopped',
        stoppedAt: node.id,
        lastNodeId: at.lastId,
        ...(at.lastOutcome === undefined ? {} : { outcome: at.lastOutcome }),
      };
    }
    const arrival = apply(options, decide(state, { type: 'node.reached', nodeId: at.nodeId }, rules));
    if (arrival.kind === 'end') return arrival.end;
    const ran = await runNode(options, at, rules);
    await yieldWhenBusy();
    if (ran.kind === 'cancelled') return cancelled(options, at, ran.reason);
    const next = apply(options, ran.decision);
    if (next.kind === 'end') return next.end;
    at.nodeId = next.nodeId;
    at.incoming = next.kind === 'go' ? next.edge : undefined;
  }
}

function startPosition(options: WalkOptions): Position {
  const previous = options.state.completedPath.at(-1);
  return {
    nodeId: options.startNodeId,
    incoming: options.incomingEdge,
    lastId: previous ?? options.startNodeId,
    lastOutcome: undefined,
  };
}

function cancelled(options: WalkOptions, at: Position, reason?: string): WalkEnd {
  return { kind: 'cancelled', reason: reason ?? reasonOf(options.abortSignal), lastNodeId: at.lastId };
}

/** The rules of one walk; `lastNodeId` follows the walk's position. */
function walkRules(options: WalkOptions, at: Position): DecisionRules {
  const { scope } = options;
  const traitsOf = (node: GraphNode) => scope.registry.traitsOf(node, scope.graph);
  return {
    graph: scope.graph,
    context: options.context,
    maxSteps: scope.maxSteps,
    exitNodeIds: scope.exitNodeIds,
    checkBudget: (nodeId) => scope.usage.check(nodeId, 'stage')?.reason,
    budgetStopped: () => scope.usage.stop?.reason,
    get lastNodeId() {
      return at.lastId;
    },
    joinOf: (nodeId) => findJoinNode(scope.graph, nodeId, { traitsOf }),
    fansOut: (nodeId) => {
      const node = scope.graph.node(nodeId);
      return node !== undefined && traitsOf(node).fansOut === true;
    },
    callsModel: (nodeId) => {
      const node = scope.graph.node(nodeId);
      return node !== undefined && traitsOf(node).callsModel === true;
    },
  };
}

/** Applies a decision's changes and effects to the walk's state and context; returns its next step. */
function apply(options: WalkOptions, decision: Decision): Decision['next'] {
  options.state.apply(decision.changes);
  for (const effect of decision.effects) options.context.appendLog(effect.message);
  return decision.next;
}

type NodeRun = { kind: 'cancelled'; reason: string } | { kind: 'completed'; decision: Decision };

/**
 * Executes the node at `at` (its visit already counted): stage directory, fidelity, the handler with retries,
 * then records the outcome (state, context, `status.json`, `stage.completed`) and asks where to go next.
 */
async function runNode(options: WalkOptions, at: Position, rules: DecisionRules): Promise<NodeRun> {
  const { scope, state, context } = options;
  const node = scope.graph.node(at.nodeId)!;
  const visit = state.nodeVisits[node.id] ?? 1;
  const index = state.stepCount + 1;
  const stagePath = options.stagePrefix === '' ? node.id : `${options.stagePrefix}/${node.id}`;
  state.currentNodeId = node.id;
  state.currentStagePath = stagePath;
  context.set('current_node', node.id);
  const prepared = scope.store.prepareStage(stagePath, visit);
  if (prepared !== undefined) await prepared;
  const opened = scope.store.localStageDirectory(stagePath);
  const localStage = 'then' in opened ? await opened : opened;
  const previousId = state.completedPath.at(-1);
  const fidelity = stageFidelity(options, node, at.incoming, previousId);

  const startedMs = scope.clock.now();
  const resumedFrom = state.takeResumedOutcome(node.id);
  const result = await executeStage({
    scope,
    state,
    node,
    context,
    stagePath,
    localStage,
    branchPath: options.branchPath,
    visit,
    index,
    fidelity,
    abortSignal: options.abortSignal,
    traceContext: options.traceContext,
    ...(at.incoming === undefined ? {} : { incomingEdge: at.incoming }),
    runBranch: (branchOptions, stage) => runBranch(options, branchOptions, stage),
    ...(resumedFrom === undefined ? {} : { resumedFrom }),
  });
  if (result.kind === 'cancelled') {
    // A cancelled node is never recorded as completed; the last checkpoint still points at it.
    state.setVisits(node.id, visit - 1);
    return { kind: 'cancelled', reason: result.reason };
  }
  const outcome = result.outcome;
  const traits = scope.registry.traitsOf(node, scope.graph);

  // Record completion and apply the outcome to the context (spec §3.2 steps 3–4).
  state.recordCompletion(node.id, outcome);
  state.lastFidelity = fidelity.mode;
  if (outcome.contextUpdates !== undefined) context.applyUpdates(outcome.contextUpdates);
  // The run's totals (spec §5.1 `usage.total.*`) come from its ledger, which counts every branch and child run.
  if (scope.usage.recorded) {
    context.applyUpdates(usageTotalsToContext(scope.usage.totals()));
    context.delete(LEGACY_AGENT_COST_KEY);
  }
  context.set('outcome', outcome.status);
  if (outcome.preferredLabel !== undefined && outcome.preferredLabel !== '')
    context.set('preferred_label', outcome.preferredLabel);
  // The handler of a stage sets last_stage (spec §5.1, §4.5); a conditional node only routes and sets nothing (§4.7),
  // so `check -> found [condition="context.last_stage=step1"]` still sees the stage before the diamond.
  if (traits.routesOnly !== true) {
    context.set('last_stage', node.id);
  }
  // One commit of the stage's file changes, before anything records the stage (README "Workspaces"). Start and exit
  // nodes, conditionals and human gates change no file: their check is skipped.
  const commit =
    scope.workspace === undefined ||
    traits.role !== undefined ||
    traits.routesOnly === true ||
    traits.asksHuman === true
      ? undefined
      : await commitStage(scope, options.branchPath, {
          nodeId: node.id,
          stagePath,
          visit,
          attempt: result.attempts,
          status: outcome.status,
          runId: scope.runId,
        });
  // The run store masks secrets (masking-run-store.ts).
  const statusFile = outcomeToStatusFile(outcome);
  const statusWritten = scope.store.writeStageStatus(
    stagePath,
    commit === undefined ? statusFile : { ...statusFile, commit },
  );
  if (statusWritten !== undefined) await statusWritten;
  scope.bus.emit(
    {
      type: 'stage.completed',
      nodeId: node.id,
      index,
      visit,
      attempt: result.attempts,
      status: outcome.status,
      durationMs: scope.clock.now() - startedMs,
      ...(outcome.preferredLabel === undefined ? {} : { preferredLabel: outcome.preferredLabel }),
      ...(outcome.notes === undefined ? {} : { notes: outcome.notes }),
      ...(outcome.failureReason === undefined ? {} : { failureReason: outcome.failureReason }),
      ...(commit === undefined ? {} : { commit }),
    },
    options.branchPath,
  );
  at.lastId = node.id;
  at.lastOutcome = outcome;
  const event: WalkEvent = { type: 'stage.completed', nodeId: node.id, outcome };
  return { kind: 'completed', decision: decide(state, event, rules) };
}

/** Commits a completed stage's changes in the walk's workspace; warns about files it left out. */
async function commitStage(
  scope: RunScope,
  branchPath: readonly string[],
  request: StageCommitRequest,
): Promise<string | undefined> {
  const done = await scope.workspace!.commitStage(request);
  if (done.skipped !== undefined && done.skipped.length > 0) {
    scope.bus.emit(
      {
        type: 'stage.log',
        nodeId: request.nodeId,
        level: 'warn',
        message: `not committed to the workspace: ${done.skipped.map((file) => `${file.path} (${file.reason})`).join(', ')}`,
      },
      branchPath,
    );
  }
  return done.commit;
}

function stageFidelity(
  options: WalkOptions,
  node: GraphNode,
  edge: GraphEdge | undefined,
  previousId: string | undefined,
): StageFidelity {
  const { scope, state, context } = options;
  const resolveOptions = { node, graph: scope.graph, ...(edge === undefined ? {} : { edge }) };
  let mode = resolveFidelity(resolveOptions);
  if (state.degradeFullOnce) {
    state.degradeFullOnce = false;
    // In-memory LLM sessions do not survive a resume (spec §5.3).
    if (mode === 'full') mode = 'summary:high';
  }
  const threadKey = resolveThreadKey({
    ...resolveOptions,
    ...(previousId === undefined ? {} : { previousNodeId: previousId }),
  });
  let preamble: string | undefined;
  return {
    mode,
    threadKey,
    // Built on first read: most handlers never look at it.
    get preamble() {
      preamble ??= buildPreamble({
        mode,
        goal: scope.graph.settings.goal,
        runId: scope.runId,
        stages: state.recent(),
        context: context.snapshot(),
        secrets: scope.secrets,
      });
      return preamble;
    },
  };
}

async function writeCheckpoint(
  options: WalkOptions,
  currentNode: string,
  nextNode: string | null,
  nextEdgeIndex: number | null,
  ended?: WalkEnd,
): Promise<void> {
  const { scope, state, context } = options;
  const checkpoint = buildCheckpoint({ scope, state, context, currentNode, nextNode, nextEdgeIndex, ended });
  // Stores that write synchronously (the file store) return nothing: no turn of the event loop is awaited then.
  const flushed = scope.bus.flush();
  if (flushed !== undefined) await flushed;
  const written = scope.store.writeCheckpoint({ ...checkpoint, last_seq: scope.bus.lastSeq });
  if (written !== undefined) await written;
  scope.bus.emit({
    type: 'checkpoint.saved',
    nodeId: currentNode,
    ...(nextNode === null ? {} : { nextNodeId: nextNode }),
  });
}

/** Options of {@link buildCheckpoint}. Internal to the engine. */
export interface BuildCheckpointOptions {
  readonly scope: RunScope;
  readonly state: WalkState;
  readonly context: Context;
  readonly currentNode: string;
  readonly nextNode: string | null;
  readonly nextEdgeIndex: number | null;
  readonly ended?: WalkEnd | undefined;
}

/** The checkpoint for the current state (spec §5.3, docs/architecture.md "Checkpoint"). */
export function buildCheckpoint(options: BuildCheckpointOptions): Checkpoint {
  const { scope, state, context, ended } = options;
  const endState =
    ended === undefined
      ? 'running'
      : ended.kind === 'success'
        ? 'success'
        : ended.kind === 'fail'
          ? 'fail'
          : 'cancelled';
  const logs = context.logs();
  const view = state.checkpointView(scope.goalGateIds);
  return {
    version: CHECKPOINT_VERSION,
    timestamp: new Date(scope.clock.now()).toISOString(),
    run_id: scope.runId,
    graph_sha256: scope.graphSha256,
    state: endState,
    current_node: options.currentNode,
    next_node: ended?.kind === 'fail' ? ended.resumeNodeId : options.nextNode,
    next_edge_index: options.nextEdgeIndex,
    completed_nodes: view.completedNodes,
    step_count: state.stepCount,
    node_retries: view.nodeRetries,
    visited_nodes: view.visitedNodes,
    node_visits: view.nodeVisits,
    node_outcomes: view.nodeOutcomes,
    gate_retries: state.gateRetries,
    fallbacks_taken: [...state.fallbacksTaken],
    failure_streaks: state.failureStreaks,
    last_fidelity: state.lastFidelity,
    recent_stages: state.recent(),
    context: context.snapshot(),
    logs: logs.length > CHECKPOINT_LOG_LIMIT ? logs.slice(-CHECKPOINT_LOG_LIMIT) : logs,
    ...(ended?.kind === 'fail' || ended?.kind === 'cancelled' ? { failure_reason: ended.reason } : {}),
    last_seq: scope.bus.lastSeq,
    ...(scope.origin === undefined ? {} : { origin: scope.origin }),
    ...(scope.workspace === undefined ? {} : { workspace: scope.workspace.record() }),
  };
}

async function runBranch(
  parent: WalkOptions,
  options: RunBranchOptions,
  stage: { stagePath: string; signal: AbortSignal; traceContext: TraceContext | undefined },
): Promise<BranchResult> {
  if (!/^[A-Za-z0-9._-]+$/.test(options.branchId)) {
    throw new Error(
      `Branch id "${options.branchId}" is invalid: use letters, digits, ".", "_" and "-" only.`,
    );
  }
  const signal =
    options.abortSignal === undefined ? stage.signal : AbortSignal.any([stage.signal, options.abortSignal]);
  const startValues = options.context.snapshot();
  const state = new WalkState();
  const folder = options.folder ?? 'branches';
  // `a` for a parallel branch, `items/3` for a foreach item: its events' branchPath entry and its workspace's name.
  const branchKey = folder === 'branches' ? options.branchId : `${folder}/${options.branchId}`;
  // A branch of a run with a workspace works in a workspace of its own, from the fan-out's commit.
  const opened = await parent.scope.workspace?.branch({ stagePath: stage.stagePath, branchId: branchKey });
  const workspace = opened?.workspace;
  if (opened?.leftovers !== undefined) {
    // An earlier attempt of this branch left files: kept, never silently lost.
    const name = `${folder}/${options.branchId}/interrupted-changes.patch`;
    await parent.scope.store.writeStageFile(stage.stagePath, name, opened.leftovers.patch);
    parent.scope.bus.emit(
      {
        type: 'stage.log',
        nodeId: options.startNodeId,
        level: 'warn',
        message: `branch ${options.branchId}'s workspace held ${opened.leftovers.files.length} changed file(s) from an earlier attempt: kept in ${stage.stagePath}/${name}`,
      },
      [...parent.branchPath, branchKey],
    );
  }
  const scope: RunScope =
    workspace === undefined ? parent.scope : { ...parent.scope, workspace, workdir: workspace.workdir };
  let end: WalkEnd;
  try {
    end = await walkBranch({
      scope,
      state,
      context: options.context,
      startNodeId: options.startNodeId,
      ...(options.stopBefore === undefined ? {} : { stopBefore: options.stopBefore }),
      abortSignal: signal,
      stagePrefix: `${stage.stagePath}/${folder}/${options.branchId}`,
      branchPath: [...parent.branchPath, branchKey],
      traceContext: stage.traceContext ?? parent.traceContext,
    });
  } finally {
    await workspace?.close();
  }
  const lastResponse = options.context.get('last_response');
  const lastOutcome = state.nodeOutcomes[end.lastNodeId];
  const base = {
    lastNodeId: end.lastNodeId,
    completedNodes: state.completedPath,
    context: options.context,
    contextUpdates: options.context.diff(startValues),
    ...(typeof lastResponse === 'string' ? { lastResponse } : {}),
    ...(workspace === undefined
      ? {}
      : {
          workspace: {
            commit: workspace.record().commit,
            ...(workspace.ref === undefined ? {} : { ref: workspace.ref }),
          },
        }),
  };
  switch (end.kind) {
    case 'success':
      return { ...base, status: 'success', outcome: end.outcome };
    case 'stopped':
      return {
        ...base,
        status: 'success',
        stoppedAt: end.stoppedAt,
        outcome: end.outcome ?? { status: 'success' },
      };
    case 'restart':
      return { ...base, status: 'success', outcome: lastOutcome ?? { status: 'success' } };
    case 'cancelled':
      return {
        ...base,
        status: 'cancelled',
        failureReason: end.reason,
        outcome: { status: 'fail', failureReason: end.reason },
      };
    case 'fail':
      return {
        ...base,
        status: 'fail',
        failureReason: end.reason,
        outcome: end.outcome ?? { status: 'fail', failureReason: end.reason },
      };
  }
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' && reason !== '' ? reason : 'cancelled';
}
