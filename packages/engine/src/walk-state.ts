/**
 * The mutable bookkeeping of one walk over the graph (the top-level run or one branch): counters, outcomes and
 * the path. Serialised into the checkpoint for the top-level walk.
 */
import type { FidelityMode } from '@attractor/graph';
import type { SnapshotChange } from './decide.js';
import { createNodeDictionary } from './node-dictionary.js';
import type { Outcome } from './outcome.js';
import type { Checkpoint, StageRecord } from './run-store.js';
import { VisitedNodes } from './visited-nodes.js';

/** How many recent node executions the checkpoint lists in `completed_nodes`. */
export const CHECKPOINT_PATH_WINDOW = 100;
/** For how many of the most recent executions the checkpoint also lists visits and outcomes. */
export const CHECKPOINT_OUTCOME_WINDOW = 10;
/** How many recent stages the checkpoint keeps for preambles. */
export const RECENT_STAGES_LIMIT = 50;
/** How many run log entries the checkpoint keeps. */
export const CHECKPOINT_LOG_LIMIT = 100;

/** The position of every node of a graph in declaration order (what `visited_nodes` counts in). Internal to the engine. */
export function nodePositions(nodeIds: Iterable<string>): Map<string, number> {
  const positions = new Map<string, number>();
  for (const id of nodeIds) positions.set(id, positions.size);
  return positions;
}

/** Counters and history of one walk. Internal to the engine. */
export class WalkState {
  /**
   * Positions of the graph's nodes in declaration order. Set for a walk that writes checkpoints: it then keeps the
   * visited set and the counters above one up to date for `visited_nodes` / `node_visits`.
   */
  readonly #positions: ReadonlyMap<string, number> | undefined;
  readonly #visited = new VisitedNodes();
  /** Visit counters above one. */
  readonly #repeatVisits = createNodeDictionary<number>();
  /** Every node execution, in order. */
  completedPath: string[] = [];
  /** Node executions counted by `max_steps`. */
  stepCount = 0;
  readonly nodeVisits = createNodeDictionary<number>();
  readonly nodeRetries = createNodeDictionary<number>();
  readonly nodeOutcomes = createNodeDictionary<Outcome>();
  gateRetries = 0;
  readonly fallbacksTaken = new Set<string>();
  readonly failureStreaks = createNodeDictionary<{ reason: string; count: number }>();
  lastFidelity: FidelityMode | null = null;
  /** Set on resume: the next stage's `full` fidelity is degraded to `summary:high` (spec §5.3). */
  degradeFullOnce = false;
  /**
   * Set on resume when the previous leg failed at the node it continues at: that visit's outcome, handed to the first
   * stage's handler as `runtime.resumedFrom` (the parallel handler keeps the branches that succeeded).
   */
  resumedOutcome: { readonly nodeId: string; readonly outcome: Outcome } | undefined;
  recentStages: StageRecord[] = [];
  /** The node executing now, for status polling. */
  currentNodeId: string | undefined;
  /** Its stage directory path relative to the run directory. */
  currentStagePath: string | undefined;

  /** The outcome a resumed run's first stage continues from, if it is `nodeId`'s (see `resumedOutcome`); once. */
  takeResumedOutcome(nodeId: string): Outcome | undefined {
    const resumed = this.resumedOutcome;
    this.resumedOutcome = undefined;
    return resumed?.nodeId === nodeId ? resumed.outcome : undefined;
  }

  /** @param positions - node positions in declaration order, for a walk that writes checkpoints. */
  constructor(positions?: ReadonlyMap<string, number>) {
    this.#positions = positions;
  }

  /** Sets the visit counter of a node (0 after a cancelled first visit). */
  setVisits(nodeId: string, visits: number): void {
    if (visits > 0) this.nodeVisits[nodeId] = visits;
    else delete this.nodeVisits[nodeId];
    if (this.#positions === undefined) return;
    if (visits > 1) this.#repeatVisits[nodeId] = visits;
    else delete this.#repeatVisits[nodeId];
    const position = this.#positions.get(nodeId);
    if (position === undefined) return;
    if (visits > 0) this.#visited.add(position);
    else this.#visited.remove(position);
  }

  /** Applies the snapshot changes of a decision (decide.ts). */
  apply(changes: readonly SnapshotChange[]): void {
    for (const change of changes) {
      switch (change.kind) {
        case 'visits':
          this.setVisits(change.nodeId, change.visits);
          break;
        case 'gate_retry':
          this.gateRetries += 1;
          break;
        case 'fallback_taken':
          this.fallbacksTaken.add(change.nodeId);
          break;
        case 'failure_streak':
          if (change.streak === undefined) delete this.failureStreaks[change.nodeId];
          else this.failureStreaks[change.nodeId] = { ...change.streak };
          break;
      }
    }
  }

  /** Records a completed node execution. */
  recordCompletion(nodeId: string, outcome: Outcome): void {
    this.completedPath.push(nodeId);
    this.stepCount += 1;
    if (outcome.status !== 'skipped') this.nodeOutcomes[nodeId] = outcome;
    const record: StageRecord = {
      node: nodeId,
      status: outcome.status,
      ...(outcome.notes === undefined ? {} : { notes: outcome.notes.slice(0, 500) }),
      ...(outcome.failureReason === undefined ? {} : { failure_reason: outcome.failureReason.slice(0, 500) }),
    };
    this.recentStages.push(record);
    if (this.recentStages.length > RECENT_STAGES_LIMIT * 2)
      this.recentStages = this.recentStages.slice(-RECENT_STAGES_LIMIT);
  }

  /** The stages for preambles, oldest first, at most {@link RECENT_STAGES_LIMIT}. */
  recent(): StageRecord[] {
    return this.recentStages.slice(-RECENT_STAGES_LIMIT);
  }

  /**
   * The bounded part of the state the checkpoint holds: the last {@link CHECKPOINT_PATH_WINDOW} executions, the
   * visits and latest outcomes of the last {@link CHECKPOINT_OUTCOME_WINDOW} of them and of every goal gate that
   * ran, and non-zero retry counters.
   * Every node visited is in `visitedNodes`, and every counter above one in `nodeVisits`.
   */
  checkpointView(goalGateIds: ReadonlySet<string>): {
    completedNodes: string[];
    visitedNodes: string;
    nodeVisits: Record<string, number>;
    nodeOutcomes: Record<string, Outcome>;
    nodeRetries: Record<string, number>;
  } {
    const completedNodes = this.completedPath.slice(-CHECKPOINT_PATH_WINDOW);
    const nodeVisits = createNodeDictionary<number>();
    for (const id in this.#repeatVisits) nodeVisits[id] = this.#repeatVisits[id]!;
    const nodeOutcomes = createNodeDictionary<Outcome>();
    const include = (id: string) => {
      const visits = this.nodeVisits[id];
      if (visits !== undefined) nodeVisits[id] = visits;
      const outcome = this.nodeOutcomes[id];
      if (outcome !== undefined) nodeOutcomes[id] = outcome;
    };
    for (const id of completedNodes.slice(-CHECKPOINT_OUTCOME_WINDOW)) include(id);
    for (const id of goalGateIds) include(id);
    if (this.currentNodeId !== undefined) include(this.currentNodeId);
    const nodeRetries = createNodeDictionary<number>();
    for (const [id, count] of Object.entries(this.nodeRetries)) if (count > 0) nodeRetries[id] = count;
    return { completedNodes, visitedNodes: this.#visited.toString(), nodeVisits, nodeOutcomes, nodeRetries };
  }

  /**
   * Restores the state a checkpoint holds (resume, fork). `nodeIds` are the node ids in the declaration order the
   * checkpoint's `visited_nodes` positions refer to (`manifest.node_ids`, or the graph's own order); `positions`
   * are the positions of the graph the walk continues on.
   */
  static fromCheckpoint(
    checkpoint: Checkpoint,
    nodeIds: readonly string[],
    positions: ReadonlyMap<string, number>,
  ): WalkState {
    const state = new WalkState(positions);
    state.completedPath = [...checkpoint.completed_nodes];
    state.stepCount = checkpoint.step_count;
    for (const position of VisitedNodes.parse(checkpoint.visited_nodes).positions()) {
      const id = nodeIds[position];
      if (id !== undefined) state.setVisits(id, 1);
    }
    for (const [id, visits] of Object.entries(checkpoint.node_visits)) state.setVisits(id, visits);
    Object.assign(state.nodeRetries, checkpoint.node_retries);
    for (const [id, outcome] of Object.entries(checkpoint.node_outcomes)) state.nodeOutcomes[id] = outcome;
    state.gateRetries = checkpoint.gate_retries;
    for (const id of checkpoint.fallbacks_taken) state.fallbacksTaken.add(id);
    for (const [id, streak] of Object.entries(checkpoint.failure_streaks))
      state.failureStreaks[id] = { ...streak };
    state.lastFidelity = checkpoint.last_fidelity as FidelityMode | null;
    state.recentStages = [...checkpoint.recent_stages];
    state.degradeFullOnce = true;
    const failedAt = checkpoint.current_node;
    const failed = checkpoint.node_outcomes[failedAt];
    if (checkpoint.state === 'fail' && checkpoint.next_node === failedAt && failed !== undefined) {
      state.resumedOutcome = { nodeId: failedAt, outcome: failed };
    }
    return state;
  }
}
