/**
 * What a write changes in the run index (`runs` row): pure functions from a manifest, a checkpoint or a batch of
 * events to the columns they set. A column left undefined keeps its value; `null` clears it.
 */
import type { Checkpoint, PipelineEvent, RunIndexStatus, RunManifest } from '@attractor/engine';
import {
  legDurationMs,
  type RunEventState,
  runIdOfLocation,
  runStatusAfterEvent,
} from '@attractor/engine/internal';

/** Columns of the `runs` row a write sets, and the token/cost increments it adds. */
export interface RunIndexPatch {
  run_id?: string;
  graph_name?: string;
  goal?: string;
  /** `restarted`: continued elsewhere by a `loop_restart` edge; such a run is not listed (its continuation is). */
  status?: RunIndexStatus | 'restarted';
  current_node?: string;
  started_at?: string;
  ended_at?: string | null;
  parent_run_id?: string;
  forked_from?: string;
  /** The completed stage of the source run a fork started after (`forked_from.node` / `.visit` of its manifest). */
  forked_from_node?: string;
  forked_from_visit?: number;
  manifest?: string;
  /** Added to `tokens`. */
  tokensDelta?: number;
  /** Added to `cost_usd`. */
  costDelta?: number;
  /** Added to `input_tokens` and `output_tokens` (`agent.usage`). */
  inputTokensDelta?: number;
  outputTokensDelta?: number;
  /** Added to `legs_ms`: the wall times of the run's legs that ended (`legDurationMs`). */
  legsMsDelta?: number;
  /**
   * Added to `resumes`: the run's own top-level `pipeline.started` with `resumed`, except a fork's first and one that
   * continues a run suspended at a gate (after `pipeline.suspended`, the gate's answer continues it).
   */
  resumesDelta?: number;
  /**
   * A resume before any leg of the batch started or ended: it counts (in `resumesDelta`) unless the row says the run
   * was `suspended`.
   */
  resumeAfterRow?: boolean;
  /** Whether the run's last leg ended with `pipeline.suspended` (the next start is no resume). */
  suspended?: boolean;
  /**
   * Merged into `failures` (a key replaces its earlier value): the latest `failureCount` of each parallel node
   * (`branches:<run id>:<branch path>:<node>`) and `foreach` node (`items:…`).
   */
  failures?: Record<string, number>;
}

/** The index columns of a manifest (and the manifest itself). */
export function patchFromManifest(manifest: RunManifest): RunIndexPatch {
  const patch: RunIndexPatch = {
    run_id: manifest.run_id,
    graph_name: manifest.graph_name,
    goal: manifest.goal,
    started_at: manifest.started_at,
    manifest: JSON.stringify(manifest),
  };
  if (manifest.restarted_from !== undefined) patch.parent_run_id = runIdOfLocation(manifest.restarted_from);
  if (manifest.forked_from !== undefined) {
    patch.forked_from = manifest.forked_from.run_id;
    patch.forked_from_node = manifest.forked_from.node;
    patch.forked_from_visit = manifest.forked_from.visit;
  }
  return patch;
}

/**
 * The index columns a checkpoint sets: an ended run's status, end time and last node; a running run's next node (the
 * one executing now). Whether a running run waits at a gate, or was interrupted, its events and its lock say. A
 * checkpoint that does not have the expected shape changes nothing (reading it is refused later, naming the field).
 */
export function patchFromCheckpoint(checkpoint: Checkpoint): RunIndexPatch {
  const state: unknown = (checkpoint as { state?: unknown }).state;
  if (state === 'running') {
    return typeof checkpoint.next_node === 'string' && checkpoint.next_node !== ''
      ? { current_node: checkpoint.next_node }
      : {};
  }
  const status = endedStatus(state);
  if (status === undefined) return {};
  const patch: RunIndexPatch = { status };
  if (typeof checkpoint.timestamp === 'string') patch.ended_at = checkpoint.timestamp;
  if (typeof checkpoint.current_node === 'string' && checkpoint.current_node !== '') {
    patch.current_node = checkpoint.current_node;
  }
  return patch;
}

/** The index status of an ended checkpoint state. */
function endedStatus(state: unknown): RunIndexPatch['status'] {
  switch (state) {
    case 'success':
    case 'fail':
    case 'cancelled':
    case 'restarted':
      return state;
    default:
      return undefined;
  }
}

/**
 * The index columns a batch of events sets, in order: the status by the run index's rule (`runStatusAfterEvent` of
 * `@attractor/engine/internal`, shared with the file catalog: `pipeline.started` running, an open interview or
 * `pipeline.suspended` waiting at a human gate, the interview's end running again, the `pipeline.*` ends), the end time
 * (`pipeline.started` clears it, an end sets it), a top-level `stage.started` (the node executing now),
 * `agent.usage` (tokens: input + output, and each apart; cost when priced), and the totals a runs list shows as the
 * server's local runs list does (`totalsSummaryFields` of `@attractor/server`): the wall time of each leg that ended,
 * the resumes of run `runId` and the failed branches and items of parallel and `foreach` nodes.
 * @param options.runId the run whose `pipeline.started` events count as resumes (a child pipeline's events in the same
 *   log do not); undefined: any top-level one.
 */
export function patchFromEvents(
  events: readonly PipelineEvent[],
  options: { readonly runId?: string } = {},
): RunIndexPatch {
  const patch: RunIndexPatch = {};
  let state: RunEventState | undefined;
  let tokens = 0;
  let cost = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let legsMs = 0;
  let resumes = 0;
  /** How the batch's last leg of the run started or ended, once one did. */
  let lastLeg: 'started' | 'suspended' | 'ended' | undefined;
  for (const event of events) {
    state = runStatusAfterEvent(state, event);
    const legMs = legDurationMs(event);
    if (legMs !== undefined) {
      legsMs += legMs;
      lastLeg = event.type === 'pipeline.suspended' ? 'suspended' : 'ended';
    }
    switch (event.type) {
      case 'pipeline.started':
        patch.ended_at = null;
        if (
          event.branchPath === undefined &&
          (options.runId === undefined || event.runId === options.runId)
        ) {
          if (event.resumed && event.forkedFrom === undefined && lastLeg !== 'suspended') {
            resumes += 1;
            if (lastLeg === undefined) patch.resumeAfterRow = true;
          }
          lastLeg = 'started';
        }
        break;
      case 'parallel.completed':
      case 'foreach.completed':
        patch.failures ??= {};
        patch.failures[
          `${event.type === 'parallel.completed' ? 'branches' : 'items'}:${event.runId}:${(event.branchPath ?? []).join('/')}:${event.nodeId}`
        ] = event.failureCount;
        break;
      case 'stage.started':
        if (event.branchPath === undefined || event.branchPath.length === 0)
          patch.current_node = event.nodeId;
        break;
      case 'pipeline.completed':
      case 'pipeline.failed':
      case 'pipeline.cancelled':
        patch.ended_at = event.timestamp;
        break;
      case 'agent.usage':
        tokens += event.inputTokens + event.outputTokens;
        inputTokens += event.inputTokens;
        outputTokens += event.outputTokens;
        if (typeof event.costUsd === 'number') cost += event.costUsd;
        break;
      default:
        break;
    }
  }
  // Suspended: a worker stopped the run at the gate and holds no lock; it still waits for the answer.
  if (state?.status !== undefined) patch.status = state.status === 'suspended' ? 'waiting' : state.status;
  if (tokens !== 0) patch.tokensDelta = tokens;
  if (cost !== 0) patch.costDelta = cost;
  if (inputTokens !== 0) patch.inputTokensDelta = inputTokens;
  if (outputTokens !== 0) patch.outputTokensDelta = outputTokens;
  if (legsMs !== 0) patch.legsMsDelta = legsMs;
  if (resumes !== 0) patch.resumesDelta = resumes;
  if (lastLeg !== undefined) patch.suspended = lastLeg === 'suspended';
  return patch;
}
