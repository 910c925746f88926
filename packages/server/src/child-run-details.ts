/**
 * The details and the graph of a child run (sub-pipeline, manager loop: `GET /pipelines/{id}?child=<path>` and
 * `GET /pipelines/{id}/graph?child=<path>`) read through its `RunStore`: the one reader behind the local server (a
 * file store on the child's run directory) and a server on a shared run store (`store.child(path)`).
 */
import {
  type Checkpoint,
  CheckpointCorruptError,
  type PipelineEvent,
  type RunStore,
} from '@attractor/engine';
import type { Graph } from '@attractor/graph';
import type { ChildRunPath } from './child-run-path.js';
import { relateToChildRun } from './child-run-path.js';
import {
  pastRunSummary,
  type RunDetails,
  stageStatusesFromEvents,
  statusesFromOutcomes,
} from './run-summary.js';
import { addEventToTotals, createRunTotals, totalsSummaryFields } from './run-totals.js';
import { readStoredStageListing } from './stage-directory-files.js';

/** The events that end a run. */
const ENDS: ReadonlySet<string> = new Set(['pipeline.completed', 'pipeline.failed', 'pipeline.cancelled']);

/** Options of {@link readChildRunDetails}. */
export interface ReadChildRunDetailsOptions {
  /** The top run's id (the details keep it as `id`; `child` says which child). */
  readonly runId: string;
  /** Where the child is under the top run. */
  readonly child: ChildRunPath;
  /** The child's own store. */
  readonly store: RunStore;
  /**
   * Whether the top run may still be executing the child (its run is live and has not reported the child ended):
   * the child is live when this holds and its event log has no end yet.
   */
  readonly parentLive: boolean;
  /** Events of the child a live run has seen and the store may not hold yet (written in batches). Default: none. */
  readonly unflushed?: readonly PipelineEvent[];
  /** The child's graph, when it can be read: its node ids order `stages`. */
  readonly graph: Graph | undefined;
}

/**
 * The details of a child run, as `GET /pipelines/{id}` reports a run: `id` stays the top run's id and `child` says
 * which child; a child is never resumable on its own (its top run is). Not masked: the route masks.
 * @throws {Error} when the child has no manifest (callers find it first: `resolveChildRunDirectory`,
 *   `openStoredChildRun`)
 */
export async function readChildRunDetails(options: ReadChildRunDetailsOptions): Promise<RunDetails> {
  const { child, store } = options;
  const [manifest, checkpoint, stored] = await Promise.all([
    store.readManifest(),
    readCheckpointSafely(store),
    store.readEvents().catch(() => []),
  ]);
  if (manifest === undefined) throw new Error(`child run "${child.path}" has no manifest`);
  const merged = new Map<number, PipelineEvent>();
  for (const event of stored) if (event.runId === child.runId) merged.set(event.seq, event);
  for (const event of options.unflushed ?? []) if (event.runId === child.runId) merged.set(event.seq, event);
  const events = [...merged.keys()].sort((a, b) => a - b).map((seq) => merged.get(seq)!);
  const last = events.at(-1);
  const finalEvent =
    last === undefined || !ENDS.has(last.type)
      ? undefined
      : {
          type: last.type,
          ...('reason' in last && typeof last.reason === 'string'
            ? { reason: last.reason }
            : 'error' in last && typeof last.error === 'string'
              ? { reason: last.error }
              : {}),
        };
  const live = options.parentLive && finalEvent === undefined;
  const summary = pastRunSummary({
    id: options.runId,
    manifest,
    checkpoint,
    finalEvent,
    startedByServer: false,
  });
  const totals = createRunTotals();
  for (const event of events) addEventToTotals(totals, event);
  const own = events.filter((event) => relateToChildRun(event, child)?.kind === 'own');
  const nodeStatuses = {
    ...stageStatusesFromEvents(own, { live }),
    ...statusesFromOutcomes(checkpoint?.node_outcomes ?? {}),
  };
  const waitingNodes = new Set<string>();
  for (const event of own) {
    if (event.type === 'interview.started') waitingNodes.add(event.stage);
    else if (event.type === 'interview.completed' || event.type === 'interview.timeout')
      waitingNodes.delete(event.question.stage);
  }
  for (const node of waitingNodes) if (live) nodeStatuses[node] = 'running';
  const completedNodes = checkpoint?.completed_nodes ?? [];
  const listing = await readStoredStageListing(
    store,
    options.graph === undefined ? completedNodes : [...options.graph.nodes.keys()],
  );
  return {
    ...summary,
    ...totalsSummaryFields(totals),
    live,
    resumable: false,
    state: live ? (waitingNodes.size > 0 ? 'waiting' : 'running') : summary.state,
    completedNodes,
    nodeStatuses,
    waitingNodes: live ? [...waitingNodes] : [],
    stages: listing.stages,
    stageDirectories: listing.stageDirectories,
    child: { path: child.path, runId: child.runId, parentNode: child.parentNode },
  };
}

/** The checkpoint of a store, or undefined when it has none or it is damaged (the run then shows as interrupted). */
export async function readCheckpointSafely(store: RunStore): Promise<Checkpoint | undefined> {
  try {
    return await store.readCheckpoint();
  } catch (error) {
    if (CheckpointCorruptError.isInstance(error)) return undefined;
    throw error;
  }
}
