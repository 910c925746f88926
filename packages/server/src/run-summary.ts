/**
 * What the API reports about a run: a summary for lists and the details of one run, for runs this server is
 * running and for past runs read back from their run directories.
 */
import type {
  Checkpoint,
  JsonValue,
  PipelineEvent,
  Question,
  QuestionType,
  RunManifest,
} from '@attractor/engine';
import type { NodeDisplayStatus } from './render-run-graph.js';
import type { StageFileName } from './run-directory-files.js';
import type { RunUsage } from './run-totals.js';
import type { StageDirectory } from './stage-directory-files.js';

/**
 * Where a run stands. `queued`: on a shared run store, enqueued (started, resumed, forked or answered) and not
 * taken by a worker yet, the run queue's state as `attractor runs` shows it; a server that runs its pipelines
 * itself never reports it. `waiting`: running and waiting for a human answer. `interrupted`: it was running when
 * its process died (no clean cancel); it can be resumed, like a `cancelled` one.
 */
export type RunState =
  | 'queued'
  | 'running'
  | 'waiting'
  | 'success'
  | 'fail'
  | 'cancelled'
  | 'interrupted'
  | 'restarted';

/** One run in `GET /pipelines`. */
export interface RunSummary {
  /** The run id: the name of its run directory. */
  readonly id: string;
  readonly graphName: string;
  readonly goal: string;
  readonly state: RunState;
  /** ISO-8601. */
  readonly startedAt: string;
  /** Whether this server process is executing it now. */
  readonly live: boolean;
  /** Whether `POST /pipelines/{id}/resume` can continue it. */
  readonly resumable: boolean;
  /** The node running now, or for a stopped run the node it would resume at. */
  readonly currentNode?: string;
  readonly failureReason?: string;
  /** Questions waiting for an answer. */
  readonly pendingQuestions: number;
  /**
   * The oldest question waiting for an answer (masked like every response): its id (for
   * `POST /pipelines/{id}/questions/{qid}/answer`), the asking stage, its text, its type (spec §6.2) and options. Set
   * for a `waiting` run this server is executing, or on a shared run store for a run suspended at a gate (the
   * question its queue entry holds).
   */
  readonly waitingQuestion?: WaitingQuestion;
  /** When the run ended (ISO-8601), for a run that ended; absent while it runs or when its process died. */
  readonly endedAt?: string;
  /**
   * Milliseconds the run executed, once it ended: the sum of its legs (a resumed run's every invocation), time
   * suspended or stopped between them not counted.
   */
  readonly durationMs?: number;
  /** Tokens (and cost, when the backend reports it) of the run's model calls, once one reported usage. */
  readonly usage?: RunUsage;
  /** A forked run's origin (its manifest's `forked_from`): the source run and the completed stage it started after. */
  readonly forkedFrom?: { readonly runId: string; readonly node: string; readonly visit: number };
  /**
   * How many times the run was resumed (its `pipeline.started` events with `resumed`; not a fork's first, nor the one
   * continuing a run a worker suspended at a gate, at its answer), when it was.
   */
  readonly resumes?: number;
  /**
   * Branches of its parallel nodes that failed (the latest `parallel.completed` `failureCount` of each node, child
   * pipelines included), when any did: the run may still have ended `success`.
   */
  readonly failedBranches?: number;
  /** Items of its `foreach` nodes that failed (`foreach.completed` `failureCount`, as `failedBranches`), when any did. */
  readonly failedItems?: number;
  /**
   * Set when the run was archived (`POST /pipelines/{id}/archive`): `GET /pipelines` leaves it out unless asked with
   * `?archived=include` or `?archived=only`. An archived run keeps everything (open, resume, fork, delete).
   */
  readonly archived?: true;
}

/** The question a waiting run asks, as {@link RunSummary.waitingQuestion} shows it. */
export interface WaitingQuestion {
  readonly id: string;
  readonly stage: string;
  readonly text: string;
  readonly type: QuestionType;
  readonly options: readonly { readonly key: string; readonly label: string }[];
}

/**
 * The {@link WaitingQuestion} of a pending question: `id` (the interviewer's, or the queue's question id) and what it
 * asks (spec §6.2), its options reduced to key and label. Pure; not masked.
 */
export function waitingQuestionOf(options: {
  readonly id: string;
  readonly question: Question;
}): WaitingQuestion {
  const { id, question } = options;
  return {
    id,
    stage: question.stage,
    text: question.text,
    type: question.type,
    options: question.options.map((option) => ({ key: option.key, label: option.label })),
  };
}

/** One run in `GET /pipelines/{id}`: the summary plus progress and stage files. */
export interface RunDetails extends RunSummary {
  /** Distinct nodes that completed, in the order of their first completion. */
  readonly completedNodes: readonly string[];
  /** The display status of every node that has one (others are pending). */
  readonly nodeStatuses: Readonly<Record<string, NodeDisplayStatus>>;
  /** Running nodes whose human gate waits for an answer. */
  readonly waitingNodes: readonly string[];
  /** Stage files that exist, per top-level node (for `GET /pipelines/{id}/stages/{node}/{file}`). */
  readonly stages: readonly { readonly nodeId: string; readonly files: readonly StageFileName[] }[];
  /**
   * Every stage directory, parallel branch stages included (for `GET /pipelines/{id}/stage` and
   * `GET /pipelines/{id}/stage-file`).
   */
  readonly stageDirectories: readonly StageDirectory[];
  /**
   * Set for the details of a child run (`GET /pipelines/{id}?child=<path>`): the child's path under run `id`, its
   * own run id, and the node of its parent run that started it.
   */
  readonly child?: { readonly path: string; readonly runId: string; readonly parentNode: string };
  /** The run's result (`output.json`, README "Typed data"), when the graph declares `outputs` and the run succeeded. */
  readonly output?: Readonly<Record<string, JsonValue>>;
}

/** The summary of a run this server is not executing, from its manifest and checkpoint. Pure. */
export function pastRunSummary(options: {
  readonly id: string;
  readonly manifest: RunManifest;
  readonly checkpoint: Checkpoint | undefined;
  /** The last event of `events.jsonl` when it ends the run (see `readFinalEvent`). */
  readonly finalEvent?: { readonly type: string; readonly reason?: string } | undefined;
  readonly startedByServer: boolean;
}): RunSummary {
  const { id, manifest, checkpoint, finalEvent } = options;
  // The engine leaves the checkpoint of a cancelled run as it was ("running"); its event log says how it ended.
  const ended: RunState | undefined =
    finalEvent?.type === 'pipeline.cancelled'
      ? 'cancelled'
      : finalEvent?.type === 'pipeline.failed'
        ? 'fail'
        : finalEvent?.type === 'pipeline.completed'
          ? 'success'
          : undefined;
  const state: RunState =
    checkpoint === undefined || checkpoint.state === 'running' ? (ended ?? 'interrupted') : checkpoint.state;
  const failureReason = checkpoint?.failure_reason ?? (state === 'success' ? undefined : finalEvent?.reason);
  const currentNode = state === 'success' ? undefined : (checkpoint?.next_node ?? undefined);
  return {
    id,
    graphName: manifest.graph_name,
    goal: manifest.goal,
    state,
    startedAt: manifest.started_at,
    live: false,
    resumable: options.startedByServer && checkpoint !== undefined && state !== 'success',
    ...(currentNode === undefined || currentNode === '' ? {} : { currentNode }),
    ...(failureReason === undefined ? {} : { failureReason }),
    pendingQuestions: 0,
  };
}

/** Node display statuses from a checkpoint's latest outcomes. Pure. */
export function statusesFromOutcomes(
  outcomes: Readonly<Record<string, { readonly status: string }>>,
): Record<string, NodeDisplayStatus> {
  const statuses: Record<string, NodeDisplayStatus> = {};
  for (const [nodeId, outcome] of Object.entries(outcomes))
    statuses[nodeId] = toDisplayStatus(outcome.status);
  return statuses;
}

function toDisplayStatus(status: string): NodeDisplayStatus {
  switch (status) {
    case 'success':
    case 'partial_success':
    case 'retry':
    case 'fail':
    case 'skipped':
      return status;
    default:
      // A custom outcome word (docs/architecture.md "Outcomes") counts as success.
      return 'success';
  }
}

/** Where a fork started: the source run, and the stage visit after which it forked. */
export interface ForkPoint {
  readonly runId: string;
  readonly node: string;
  readonly visit: number;
}

/**
 * The statuses a fork inherits from its source run's event log: every stage that completed up to and including visit
 * `visit` of stage `node` (the fork point), stages inside parallel branches and `foreach` bodies included (they have
 * no outcome in the checkpoint the fork starts from). Stages after the fork point are left out: the fork runs them
 * itself.
 */
export function inheritedStageStatuses(
  events: Iterable<PipelineEvent>,
  from: ForkPoint,
): Record<string, NodeDisplayStatus> {
  const before: PipelineEvent[] = [];
  for (const event of events) {
    if (event.runId !== from.runId) continue;
    before.push(event);
    if (
      event.type === 'stage.completed' &&
      event.nodeId === from.node &&
      event.visit === from.visit &&
      (event.branchPath === undefined || event.branchPath.length === 0)
    )
      return stageStatusesFromEvents(before, { live: false });
  }
  // The fork point is not in the log (a log cut short): nothing is inherited from it rather than too much.
  return {};
}

/**
 * The display status of every node that ran, from a run's events: the latest `stage.completed` of each node wins,
 * inside parallel branches too (whose outcomes the checkpoint does not hold); a node started and not completed yet
 * is `running` while `live`, and keeps no status otherwise. Pure.
 */
export function stageStatusesFromEvents(
  events: Iterable<PipelineEvent>,
  options: { readonly live: boolean },
): Record<string, NodeDisplayStatus> {
  const statuses: Record<string, NodeDisplayStatus> = {};
  for (const event of events) {
    if (event.type === 'stage.started' && options.live) statuses[event.nodeId] = 'running';
    else if (event.type === 'stage.completed') statuses[event.nodeId] = toDisplayStatus(event.status);
  }
  return statuses;
}
