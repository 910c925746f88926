/**
 * The pure decision core of the run loop (spec §3.2–3.7, docs/architecture.md "Loop guards", "Goal gates",
 * "Routing dead ends"): given the walk's snapshot and what just happened, it says what changes and where the
 * walk goes next. It reads the graph and the context and writes nothing; the walkers in walk-graph.ts apply
 * its result (update the counters, append the logs, run the stage, persist, emit).
 *
 * The next snapshot comes back as a list of {@link SnapshotChange}s rather than a copy of the counters: a copy
 * would cost time proportional to the graph on every node.
 */
import type { Graph, GraphEdge } from '@attractor/graph';
import { findUnsatisfiedGoalGate, resolveRetryTarget } from './goal-gates.js';
import { isSuccessStatus, type Outcome } from './outcome.js';
import { type EdgeConditionContext, selectEdge } from './select-edge.js';

/** The part of a walk's state the decisions read. `WalkState` satisfies it. */
export interface DecisionSnapshot {
  /** Node executions so far (the `max_steps` counter). */
  readonly stepCount: number;
  /** Visits per node (entries into the node; retries inside a visit do not count). */
  readonly nodeVisits: Readonly<Record<string, number>>;
  /** The latest non-skipped outcome per node (goal gates). */
  readonly nodeOutcomes: Readonly<Record<string, Outcome>>;
  /** Goal-gate jumps taken so far. */
  readonly gateRetries: number;
  /** Nodes whose `fallback_retry_target` was taken (at most once per node per run). */
  readonly fallbacksTaken: ReadonlySet<string>;
  /** Per node, the last failure reason and on how many consecutive visits it failed with it (`stuck`). */
  readonly failureStreaks: Readonly<Record<string, { readonly reason: string; readonly count: number }>>;
}

/** What happened, for {@link decide}. */
export type WalkEvent =
  /** The top-level walk arrived at a terminal node: are the goal gates satisfied? (spec §3.4) */
  | { readonly type: 'exit.reached'; readonly nodeId: string }
  /** The walk is about to execute a node: loop guards (docs/architecture.md "Loop guards"). */
  | { readonly type: 'node.reached'; readonly nodeId: string }
  /** A node finished with an outcome: routing (spec §3.3, §3.7). */
  | { readonly type: 'stage.completed'; readonly nodeId: string; readonly outcome: Outcome };

/** One change to the snapshot. */
export type SnapshotChange =
  | { readonly kind: 'visits'; readonly nodeId: string; readonly visits: number }
  | { readonly kind: 'gate_retry' }
  | { readonly kind: 'fallback_taken'; readonly nodeId: string }
  | {
      readonly kind: 'failure_streak';
      readonly nodeId: string;
      /** Undefined clears the streak. */
      readonly streak: { readonly reason: string; readonly count: number } | undefined;
    };

/** A side effect the walker performs. */
export type DecisionEffect = { readonly kind: 'log'; readonly message: string };

/** How a walk ended. */
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

/** Where the walk goes next. */
export type NextStep =
  /** Execute this node now (after `node.reached`), as visit `visit`. */
  | { readonly kind: 'execute'; readonly nodeId: string; readonly visit: number }
  /** Go to this node, along `edge` when an edge was selected (jumps have none). */
  | { readonly kind: 'go'; readonly nodeId: string; readonly edge?: GraphEdge }
  /** The walk ends. */
  | { readonly kind: 'end'; readonly end: WalkEnd };

/** The result of {@link decide}. */
export interface Decision {
  readonly changes: readonly SnapshotChange[];
  readonly effects: readonly DecisionEffect[];
  readonly next: NextStep;
}

/** What the rules read besides the snapshot. */
export interface DecisionRules {
  readonly graph: Graph;
  /** Read by edge conditions. */
  readonly context: EdgeConditionContext;
  /** Node executions allowed (`max_steps`). */
  readonly maxSteps: number;
  /** Ids of the terminal nodes. */
  readonly exitNodeIds: ReadonlySet<string>;
  /** The node executed last, for the `lastNodeId` of an end decided before a node runs. */
  readonly lastNodeId: string;
  /** The join a `parallel` node's walk continues at (docs/architecture.md "Parallel fan-out"). */
  readonly joinOf: (parallelNodeId: string) => string | undefined;
  /** Whether a node's branches were already walked by its handler (its handler `fansOut`, like `parallel`). */
  readonly fansOut: (nodeId: string) => boolean;
  /** Whether a node's handler calls the LLM (`callsModel`, like `codergen`): budgets are checked before it. */
  readonly callsModel: (nodeId: string) => boolean;
  /**
   * The budget check before LLM stage `nodeId` (`max_budget_usd`, `max_tokens` against the run's usage so far,
   * parallel branches and child runs included): the reason to stop, or undefined while the budget lasts. Default: no
   * budget.
   */
  readonly checkBudget?: (nodeId: string) => string | undefined;
  /**
   * Why the run stops for its budget, once a budget check refused (before a stage or a model call, in any walk of
   * the run): every walk then ends after its running stage, resumable at that stage. Default: never.
   */
  readonly budgetStopped?: () => string | undefined;
}

/**
 * Decides what an event means for the walk: the changes to its snapshot, the logs to append, and the next step.
 * Pure: reads `snapshot`, `event` and `rules`, and returns data.
 *
 * @example
 * const decision = decide(state, { type: 'stage.completed', nodeId: 'test', outcome: { status: 'fail' } }, rules);
 */
export function decide(snapshot: DecisionSnapshot, event: WalkEvent, rules: DecisionRules): Decision {
  switch (event.type) {
    case 'exit.reached':
      return decideExit(snapshot, event.nodeId, rules);
    case 'node.reached':
      return decideArrival(snapshot, event.nodeId, rules);
    case 'stage.completed':
      return decideRoute(snapshot, event.nodeId, event.outcome, rules);
  }
}

const NO_CHANGES: readonly SnapshotChange[] = [];
const NO_EFFECTS: readonly DecisionEffect[] = [];

function stop(rules: DecisionRules, reason: string, resumeNodeId: string): Decision {
  return {
    changes: NO_CHANGES,
    effects: NO_EFFECTS,
    next: { kind: 'end', end: { kind: 'fail', reason, lastNodeId: rules.lastNodeId, resumeNodeId } },
  };
}

/** Goal gates at a terminal node (spec §3.4, docs/architecture.md "Goal gates"). */
function decideExit(snapshot: DecisionSnapshot, nodeId: string, rules: DecisionRules): Decision {
  const { graph } = rules;
  const gate = findUnsatisfiedGoalGate({ graph, nodeOutcomes: snapshot.nodeOutcomes });
  if (gate === undefined) return decideArrival(snapshot, nodeId, rules);
  const gateStatus = snapshot.nodeOutcomes[gate.id]?.status ?? 'unknown';
  if (snapshot.gateRetries >= graph.settings.maxGateRetries) {
    return stop(
      rules,
      `goal gate "${gate.id}" still unsatisfied (outcome=${gateStatus}) after ${snapshot.gateRetries} gate retries (max_gate_retries=${graph.settings.maxGateRetries})`,
      nodeId,
    );
  }
  const target = resolveRetryTarget({ node: gate, graph });
  if (target === undefined) {
    return stop(
      rules,
      `goal gate "${gate.id}" unsatisfied (outcome=${gateStatus}) and no retry target: set retry_target on "${gate.id}" or on the graph`,
      nodeId,
    );
  }
  return {
    changes: [{ kind: 'gate_retry' }],
    effects: [{ kind: 'log', message: `goal gate ${gate.id} unsatisfied; jumping to ${target.nodeId}` }],
    next: { kind: 'go', nodeId: target.nodeId },
  };
}

/** Loop guards before a node runs (docs/architecture.md "Loop guards"). */
function decideArrival(snapshot: DecisionSnapshot, nodeId: string, rules: DecisionRules): Decision {
  const { graph } = rules;
  const node = graph.node(nodeId);
  if (node === undefined)
    return stop(rules, `node "${nodeId}" does not exist in graph "${graph.id}"`, nodeId);
  if (rules.checkBudget !== undefined && rules.callsModel(nodeId)) {
    const reason = rules.checkBudget(nodeId);
    if (reason !== undefined) return stop(rules, reason, nodeId);
  }
  if (snapshot.stepCount >= rules.maxSteps) {
    return stop(
      rules,
      `max_steps (${rules.maxSteps}) reached before node "${nodeId}": a guard against runaway loops; raise max_steps if this pipeline needs more steps`,
      nodeId,
    );
  }
  const visit = (snapshot.nodeVisits[nodeId] ?? 0) + 1;
  const limit = node.maxVisits ?? graph.settings.maxNodeVisits;
  if (visit > limit) {
    const name = node.maxVisits === undefined ? 'max_node_visits' : 'max_visits';
    return stop(rules, `node "${nodeId}" reached its visit limit (${name}=${limit})`, nodeId);
  }
  return {
    changes: [{ kind: 'visits', nodeId, visits: visit }],
    effects: NO_EFFECTS,
    next: { kind: 'execute', nodeId, visit },
  };
}

/**
 * Routing after a node (spec §3.3 edge selection, §3.7 failure routing,
 * docs/architecture.md "Routing dead ends").
 */
function decideRoute(
  snapshot: DecisionSnapshot,
  nodeId: string,
  outcome: Outcome,
  rules: DecisionRules,
): Decision {
  const { graph } = rules;
  const node = graph.node(nodeId);
  const fail = (reason: string, changes: readonly SnapshotChange[] = NO_CHANGES): Decision => ({
    changes,
    effects: NO_EFFECTS,
    next: { kind: 'end', end: { kind: 'fail', reason, lastNodeId: nodeId, resumeNodeId: nodeId, outcome } },
  });
  if (node === undefined) return fail(`node "${nodeId}" does not exist in graph "${graph.id}"`);
  if (rules.exitNodeIds.has(nodeId)) {
    if (isSuccessStatus(outcome.status) || outcome.status === 'skipped') {
      return {
        changes: NO_CHANGES,
        effects: NO_EFFECTS,
        next: { kind: 'end', end: { kind: 'success', lastNodeId: nodeId, outcome } },
      };
    }
    return fail(`exit node "${nodeId}" failed: ${outcome.failureReason ?? outcome.status}`);
  }
  // A budget refused a model call (here or in another walk of the run): the run stops, resumable at this stage, since
  // what it did is incomplete (a fan-out with a branch cut short, an agent stopped between calls).
  const budgetStopped = rules.budgetStopped?.();
  if (budgetStopped !== undefined) return fail(budgetStopped);

  // The `stuck` guard: the same failure on 3 consecutive visits of a node stops the run.
  let changes: SnapshotChange[] = [];
  if (outcome.status === 'fail') {
    const reason = outcome.failureReason ?? '';
    const streak = snapshot.failureStreaks[nodeId];
    const count = streak !== undefined && streak.reason === reason ? streak.count + 1 : 1;
    changes.push({ kind: 'failure_streak', nodeId, streak: { reason, count } });
    if (count >= 3) {
      return fail(
        `stuck: node "${nodeId}" failed ${count} consecutive visits with the same reason: ${reason || '(no reason)'}`,
        changes,
      );
    }
  } else if (snapshot.failureStreaks[nodeId] !== undefined) {
    changes.push({ kind: 'failure_streak', nodeId, streak: undefined });
  }
  const go = (to: string, edge?: GraphEdge, effects: readonly DecisionEffect[] = NO_EFFECTS): Decision => ({
    changes,
    effects,
    next: edge === undefined ? { kind: 'go', nodeId: to } : { kind: 'go', nodeId: to, edge },
  });

  // A handler that ran its outgoing edges itself names where the walk continues
  // (docs/architecture.md "Parallel fan-out").
  if (outcome.continueAt !== undefined) {
    if (graph.node(outcome.continueAt) !== undefined) return go(outcome.continueAt);
    return fail(
      `node "${nodeId}" asked to continue at "${outcome.continueAt}", which is not in the graph`,
      changes,
    );
  }
  const edges = graph.outgoing(nodeId);
  if (outcome.status !== 'fail' && rules.fansOut(nodeId)) {
    const join = outcome.suggestedNextIds?.find((id) => graph.nodes.has(id)) ?? rules.joinOf(nodeId);
    if (join !== undefined) return go(join);
    return fail(
      `parallel node "${nodeId}" has no join: add a parallel.fan_in (shape=tripleoctagon) node where its branches meet`,
      changes,
    );
  }
  if (outcome.status === 'fail') {
    // Failure routing (spec §3.7): a matching conditional edge, then retry_target, then fallback_retry_target (once).
    const selection = selectEdge({ edges, outcome, context: rules.context, conditionalOnly: true });
    if (selection !== undefined) return go(selection.edge.to, selection.edge);
    const fallbackTaken = snapshot.fallbacksTaken.has(nodeId);
    const target = resolveRetryTarget({ node, graph, includeGraph: false, allowFallback: !fallbackTaken });
    if (target !== undefined) {
      if (target.source === 'node_fallback') changes = [...changes, { kind: 'fallback_taken', nodeId }];
      return go(target.nodeId, undefined, [
        {
          kind: 'log',
          message: `node ${nodeId} failed; jumping to ${target.source === 'node' ? 'retry_target' : 'fallback_retry_target'} ${target.nodeId}`,
        },
      ]);
    }
    const reason = outcome.failureReason ?? 'no failure reason given';
    const fallbackNote =
      node.fallbackRetryTarget !== undefined && fallbackTaken
        ? ' (fallback_retry_target already taken once)'
        : '';
    return fail(`node "${nodeId}" failed: ${reason}${fallbackNote}`, changes);
  }

  const selection = selectEdge({ edges, outcome, context: rules.context });
  if (selection !== undefined) return go(selection.edge.to, selection.edge);
  if (edges.length > 0) {
    // Fail closed, naming the conditions that did not match (a misspelt key, an outcome not covered).
    const conditions = edges.map((edge) => `"${edge.condition}" (-> ${edge.to})`).join(', ');
    return fail(
      `no eligible edge from ${nodeId} (outcome=${outcome.status}); none of its edge conditions matched: ${conditions}`,
      changes,
    );
  }
  // No outgoing edges at all: the run ends as the spec's pseudocode says.
  return {
    changes,
    effects: NO_EFFECTS,
    next: { kind: 'end', end: { kind: 'success', lastNodeId: nodeId, outcome } },
  };
}
