/**
 * The core execution loop of spec §3.2, shared by the top-level run and by `runtime.runBranch`: loop guards,
 * goal gates, node execution, context updates, checkpoint, edge selection, failure routing, fail-closed dead ends.
 */

import type { GraphEdge, GraphNode } from '@attractor/graph';
import { buildPreamble } from './build-preamble.js';
import { budgetStopReason } from './check-budget.js';
import type { Context } from './context.js';
import { executeStage } from './execute-stage.js';
import { findJoinNode } from './find-join-node.js';
import { findUnsatisfiedGoalGate, resolveRetryTarget } from './goal-gates.js';
import type { BranchResult, RunBranchOptions, StageFidelity } from './handler-runtime.js';
import { isSuccessStatus, type Outcome } from './outcome.js';
import { redactSecrets } from './redact-secrets.js';
import { resolveFidelity, resolveThreadKey } from './resolve-fidelity.js';
import type { RunScope } from './run-scope.js';
import { CHECKPOINT_VERSION, type Checkpoint } from './run-store.js';
import { selectEdge } from './select-edge.js';
import { outcomeToStatusFile } from './status-file.js';
import { CHECKPOINT_LOG_LIMIT, WalkState } from './walk-state.js';

/** How a walk ended. Internal to the engine. */
export type WalkEnd =
  | { readonly kind: 'success'; readonly lastNodeId: string; readonly outcome: Outcome }
  | {
      readonly kind: 'fail';
      readonly reason: string;
      readonly lastNodeId: string;
      /** The node a resume re-runs. */
      readonly resumeNodeId: string;
      readonly outcome?: Outcome;
    }
  | { readonly kind: 'cancelled'; readonly reason: string; readonly lastNodeId: string }
  | {
      readonly kind: 'stopped';
      readonly stoppedAt: string;
      readonly lastNodeId: string;
      readonly outcome?: Outcome;
    }
  | { readonly kind: 'restart'; readonly targetNodeId: string; readonly lastNodeId: string };

/** Options of {@link walkGraph}. Internal to the engine. */
export interface WalkOptions {
  readonly scope: RunScope;
  readonly state: WalkState;
  readonly context: Context;
  readonly startNodeId: string;
  /** The edge the walk arrives at `startNodeId` by, if any. */
  readonly incomingEdge?: GraphEdge;
  readonly stopBefore?: (node: GraphNode) => boolean;
  readonly abortSignal: AbortSignal;
  /** Prefix of stage directory paths relative to the run directory (`''` at the top level). */
  readonly stagePrefix: string;
  readonly branchPath: readonly string[];
  /** Write `checkpoint.json` after every node (top-level walk only) and honour `loop_restart`. */
  readonly topLevel: boolean;
}

/** Walks the graph from `startNodeId` until it ends. Never rejects for handler or routing faults. */
export async function walkGraph(options: WalkOptions): Promise<WalkEnd> {
  const { scope, state, context, topLevel } = options;
  const { graph, bus } = scope;
  let currentId = options.startNodeId;
  let incoming = options.incomingEdge;
  let previousId: string | undefined = state.completedPath.at(-1);
  let lastId = previousId ?? currentId;
  let lastOutcome: Outcome | undefined;

  // A stop decided before a node runs (loop guards, goal gates); the top level records it in the checkpoint.
  const stopWithFailure = async (reason: string, resumeNodeId: string): Promise<WalkEnd> => {
    const end: WalkEnd = { kind: 'fail', reason, lastNodeId: lastId, resumeNodeId };
    if (topLevel) await writeCheckpoint(options, lastId, null, null, end);
    return end;
  };

  while (true) {
    if (options.abortSignal.aborted) {
      return { kind: 'cancelled', reason: reasonOf(options.abortSignal), lastNodeId: lastId };
    }
    const node = graph.node(currentId);
    if (node === undefined)
      return await stopWithFailure(`node "${currentId}" does not exist in graph "${graph.id}"`, currentId);
    if (options.stopBefore?.(node) === true) {
      return {
        kind: 'stopped',
        stoppedAt: node.id,
        lastNodeId: lastId,
        ...(lastOutcome === undefined ? {} : { outcome: lastOutcome }),
      };
    }

    const terminal = scope.exitNodeIds.has(node.id);
    if (terminal && !topLevel) {
      // A branch stops before the exit; the parent walk executes it (and checks goal gates) once.
      return {
        kind: 'stopped',
        stoppedAt: node.id,
        lastNodeId: lastId,
        ...(lastOutcome === undefined ? {} : { outcome: lastOutcome }),
      };
    }
    if (terminal) {
      const gate = findUnsatisfiedGoalGate({ graph, nodeOutcomes: state.nodeOutcomes });
      if (gate !== undefined) {
        const gateStatus = state.nodeOutcomes[gate.id]?.status ?? 'unknown';
        if (state.gateRetries >= graph.settings.maxGateRetries) {
          return await stopWithFailure(
            `goal gate "${gate.id}" still unsatisfied (outcome=${gateStatus}) after ${state.gateRetries} gate retries (max_gate_retries=${graph.settings.maxGateRetries})`,
            currentId,
          );
        }
        const target = resolveRetryTarget({ node: gate, graph });
        if (target === undefined) {
          return await stopWithFailure(
            `goal gate "${gate.id}" unsatisfied (outcome=${gateStatus}) and no retry target: set retry_target on "${gate.id}" or on the graph`,
            currentId,
          );
        }
        state.gateRetries += 1;
        context.appendLog(`goal gate ${gate.id} unsatisfied; jumping to ${target.nodeId}`);
        currentId = target.nodeId;
        incoming = undefined;
        continue;
      }
    }

    if (
      (scope.budget.maxBudgetUsd !== undefined || scope.budget.maxTokens !== undefined) &&
      graph.handlerType(node) === 'codergen'
    ) {
      const reason = budgetStopReason({
        budget: scope.budget,
        nodeId: node.id,
        read: (key) => context.get(key),
      });
      if (reason !== undefined) return await stopWithFailure(reason, currentId);
    }
    if (state.stepCount >= scope.maxSteps) {
      return await stopWithFailure(
        `max_steps (${scope.maxSteps}) reached before node "${node.id}": the run looks like a runaway loop`,
        currentId,
      );
    }
    const visit = (state.nodeVisits[node.id] ?? 0) + 1;
    const nodeLimit = node.maxVisits;
    const limit = nodeLimit ?? graph.settings.maxNodeVisits;
    if (visit > limit) {
      const name = nodeLimit === undefined ? 'max_node_visits' : 'max_visits';
      return await stopWithFailure(`node "${node.id}" reached its visit limit (${name}=${limit})`, currentId);
    }
    state.nodeVisits[node.id] = visit;
    const index = state.stepCount + 1;

    const stagePath = options.stagePrefix === '' ? node.id : `${options.stagePrefix}/${node.id}`;
    state.currentNodeId = node.id;
    state.currentStagePath = stagePath;
    context.set('current_node', node.id);
    const stageDir = await scope.store.prepareStageDir(stagePath, visit);
    const fidelity = stageFidelity(options, node, incoming, previousId);

    const startedMs = scope.clock.now();
    const result = await executeStage({
      scope,
      state,
      node,
      context,
      stagePath,
      stageDir,
      branchPath: options.branchPath,
      visit,
      index,
      fidelity,
      abortSignal: options.abortSignal,
      runBranch: (branchOptions, stage) => runBranch(options, branchOptions, stage),
    });
    if (result.kind === 'cancelled') {
      // A cancelled node is never recorded as completed; the last checkpoint still points at it.
      state.nodeVisits[node.id] = visit - 1;
      return { kind: 'cancelled', reason: result.reason, lastNodeId: lastId };
    }
    const outcome = result.outcome;

    // Record completion and apply the outcome to the context (spec §3.2 steps 3–4).
    state.recordCompletion(node.id, outcome);
    state.lastFidelity = fidelity.mode;
    if (outcome.contextUpdates !== undefined) context.applyUpdates(outcome.contextUpdates);
    context.set('outcome', outcome.status);
    if (outcome.preferredLabel !== undefined && outcome.preferredLabel !== '')
      context.set('preferred_label', outcome.preferredLabel);
    context.set('last_stage', node.id);
    await scope.store.writeStageStatus(
      stagePath,
      redactSecrets(outcomeToStatusFile(outcome), scope.secretValues),
    );
    bus.emit(
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
      },
      options.branchPath,
    );
    lastId = node.id;
    lastOutcome = outcome;
    previousId = node.id;

    // Decide where to go next.
    const decision = decideNext(options, node, outcome);
    if (decision.kind === 'end') {
      if (topLevel) await writeCheckpoint(options, node.id, null, null, decision.end);
      return decision.end;
    }
    if (topLevel) await writeCheckpoint(options, node.id, decision.nodeId, decision.edge?.index ?? null);
    if (decision.edge?.loopRestart === true && topLevel) {
      return { kind: 'restart', targetNodeId: decision.nodeId, lastNodeId: node.id };
    }
    currentId = decision.nodeId;
    incoming = decision.edge;
  }
}

type Decision = { kind: 'go'; nodeId: string; edge?: GraphEdge } | { kind: 'end'; end: WalkEnd };

function decideNext(options: WalkOptions, node: GraphNode, outcome: Outcome): Decision {
  const { scope, state, context } = options;
  const { graph } = scope;
  if (scope.exitNodeIds.has(node.id)) {
    if (isSuccessStatus(outcome.status) || outcome.status === 'skipped') {
      return { kind: 'end', end: { kind: 'success', lastNodeId: node.id, outcome } };
    }
    return end(
      fail(node, outcome, `exit node "${node.id}" failed: ${outcome.failureReason ?? outcome.status}`),
    );
  }

  // The `stuck` guard: the same failure on 3 consecutive visits of a node stops the run (DESIGN.md loop guards).
  if (outcome.status === 'fail') {
    const reason = outcome.failureReason ?? '';
    const streak = state.failureStreaks[node.id];
    const count = streak !== undefined && streak.reason === reason ? streak.count + 1 : 1;
    state.failureStreaks[node.id] = { reason, count };
    if (count >= 3) {
      return end(
        fail(
          node,
          outcome,
          `stuck: node "${node.id}" failed ${count} consecutive visits with the same reason: ${reason || '(no reason)'}`,
        ),
      );
    }
  } else delete state.failureStreaks[node.id];

  // A handler that ran its outgoing edges itself (parallel) names where the walk continues (DESIGN.md).
  if (outcome.continueAt !== undefined) {
    if (graph.node(outcome.continueAt) !== undefined) return { kind: 'go', nodeId: outcome.continueAt };
    return end(
      fail(
        node,
        outcome,
        `node "${node.id}" asked to continue at "${outcome.continueAt}", which is not in the graph`,
      ),
    );
  }

  const edges = graph.outgoing(node.id);
  if (outcome.status !== 'fail' && graph.handlerType(node) === 'parallel') {
    // The branches already walked the fan-out edges: continue at the join (DESIGN.md "Parallel fan-out").
    const join = outcome.suggestedNextIds?.find((id) => graph.nodes.has(id)) ?? findJoinNode(graph, node.id);
    if (join !== undefined) return { kind: 'go', nodeId: join };
    return end(
      fail(
        node,
        outcome,
        `parallel node "${node.id}" has no join: add a parallel.fan_in (shape=tripleoctagon) node where its branches meet`,
      ),
    );
  }
  if (outcome.status === 'fail') {
    // Failure routing (spec §3.7): a matching conditional edge, then retry_target, then fallback_retry_target (once).
    const selection = selectEdge({ edges, outcome, context, conditionalOnly: true });
    if (selection !== undefined) return { kind: 'go', nodeId: selection.edge.to, edge: selection.edge };
    const target = resolveRetryTarget({
      node,
      graph,
      includeGraph: false,
      allowFallback: !state.fallbacksTaken.has(node.id),
    });
    if (target !== undefined) {
      if (target.source === 'node_fallback') state.fallbacksTaken.add(node.id);
      context.appendLog(
        `node ${node.id} failed; jumping to ${target.source === 'node' ? 'retry_target' : 'fallback_retry_target'} ${target.nodeId}`,
      );
      return { kind: 'go', nodeId: target.nodeId };
    }
    const reason = outcome.failureReason ?? 'no failure reason given';
    const fallbackNote =
      node.fallbackRetryTarget !== undefined && state.fallbacksTaken.has(node.id)
        ? ' (fallback_retry_target already taken once)'
        : '';
    return end(fail(node, outcome, `node "${node.id}" failed: ${reason}${fallbackNote}`));
  }

  const selection = selectEdge({ edges, outcome, context });
  if (selection !== undefined) return { kind: 'go', nodeId: selection.edge.to, edge: selection.edge };
  if (edges.length > 0) {
    // Fail closed (DESIGN.md "Routing dead ends").
    // Name the conditions that did not match, so the user sees why (a misspelt key, an outcome not covered).
    const conditions = edges.map((edge) => `"${edge.condition}" (-> ${edge.to})`).join(', ');
    return end(
      fail(
        node,
        outcome,
        `no eligible edge from ${node.id} (outcome=${outcome.status}); none of its edge conditions matched: ${conditions}`,
      ),
    );
  }
  // No outgoing edges at all: the run ends as the spec's pseudocode says.
  return { kind: 'end', end: { kind: 'success', lastNodeId: node.id, outcome } };
}

function end(walkEnd: WalkEnd): Decision {
  return { kind: 'end', end: walkEnd };
}

function fail(node: GraphNode, outcome: Outcome, reason: string): WalkEnd {
  return { kind: 'fail', reason, lastNodeId: node.id, resumeNodeId: node.id, outcome };
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
  await scope.bus.flush();
  await scope.store.writeCheckpoint({ ...checkpoint, last_seq: scope.bus.lastSeq });
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

/** The checkpoint for the current state (spec §5.3, DESIGN.md "Checkpoint"). */
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
  };
}

async function runBranch(
  parent: WalkOptions,
  options: RunBranchOptions,
  stage: { stagePath: string; signal: AbortSignal },
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
  const end = await walkGraph({
    scope: parent.scope,
    state,
    context: options.context,
    startNodeId: options.startNodeId,
    ...(options.stopBefore === undefined ? {} : { stopBefore: options.stopBefore }),
    abortSignal: signal,
    stagePrefix: `${stage.stagePath}/branches/${options.branchId}`,
    branchPath: [...parent.branchPath, options.branchId],
    topLevel: false,
  });
  const lastResponse = options.context.get('last_response');
  const lastOutcome = state.nodeOutcomes[end.lastNodeId];
  const base = {
    lastNodeId: end.lastNodeId,
    completedNodes: state.completedPath,
    context: options.context,
    contextUpdates: options.context.diff(startValues),
    ...(typeof lastResponse === 'string' ? { lastResponse } : {}),
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
