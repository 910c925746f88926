/**
 * The mutable bookkeeping of one walk over the graph (the top-level run or one branch): counters, outcomes and
 * the path. Serialised into the checkpoint for the top-level walk.
 */
import type { FidelityMode } from '@attractor/graph';
import type { Outcome } from './outcome.js';
import type { Checkpoint, StageRecord } from './run-store.js';

/** How many recent stages the checkpoint keeps for preambles. */
export const RECENT_STAGES_LIMIT = 50;
/** How many run log entries the checkpoint keeps. */
export const CHECKPOINT_LOG_LIMIT = 100;

/** Counters and history of one walk. Internal to the engine. */
export class WalkState {
  /** Every node execution, in order. */
  completedPath: string[] = [];
  /** Distinct completed nodes in order of first completion. */
  readonly distinctCompleted = new Set<string>();
  /** Node executions counted by `max_steps`. */
  stepCount = 0;
  readonly nodeVisits: Record<string, number> = {};
  readonly nodeRetries: Record<string, number> = {};
  readonly nodeOutcomes: Record<string, Outcome> = {};
  gateRetries = 0;
  readonly fallbacksTaken = new Set<string>();
  readonly failureStreaks: Record<string, { reason: string; count: number }> = {};
  lastFidelity: FidelityMode | null = null;
  /** Set on resume: the next stage's `full` fidelity is degraded to `summary:high` (spec §5.3). */
  degradeFullOnce = false;
  recentStages: StageRecord[] = [];
  /** The node executing now, for status polling. */
  currentNodeId: string | undefined;
  /** Its stage directory path relative to the run directory. */
  currentStagePath: string | undefined;

  /** Records a completed node execution. */
  recordCompletion(nodeId: string, outcome: Outcome): void {
    this.completedPath.push(nodeId);
    this.distinctCompleted.add(nodeId);
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

  /** Restores the counters of a checkpoint (resume). `completedPath` comes from the event log. */
  static fromCheckpoint(checkpoint: Checkpoint, completedPath: readonly string[]): WalkState {
    const state = new WalkState();
    state.completedPath = [...completedPath];
    for (const id of checkpoint.completed_nodes) state.distinctCompleted.add(id);
    state.stepCount = checkpoint.step_count;
    Object.assign(state.nodeVisits, checkpoint.node_visits);
    Object.assign(state.nodeRetries, checkpoint.node_retries);
    Object.assign(state.nodeOutcomes, checkpoint.node_outcomes);
    state.gateRetries = checkpoint.gate_retries;
    for (const id of checkpoint.fallbacks_taken) state.fallbacksTaken.add(id);
    for (const [id, streak] of Object.entries(checkpoint.failure_streaks))
      state.failureStreaks[id] = { ...streak };
    state.lastFidelity = checkpoint.last_fidelity as FidelityMode | null;
    state.recentStages = [...checkpoint.recent_stages];
    state.degradeFullOnce = true;
    return state;
  }
}
