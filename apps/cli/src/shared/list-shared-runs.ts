/**
 * The runs of a shared store and queue as one list (`attractor runs`, `attractor purge`): the store's run index, with
 * the queue's view where a queue is set (a run still queued, the gate a suspended run waits at, the worker, a run
 * that failed outside its pipeline or was dead-lettered), newest first.
 */
import type { RunCatalog, RunIndexEntry } from '@attractor/engine';
import type { QueuedRunSummary, RunQueueReader } from '@attractor/worker';

/**
 * Where a listed run stands: the run index's statuses, `queued` (waiting for a worker), and `dead` (its job went to
 * the queue's dead letter queue: it failed more times than the workers' retry limit allows, outside its pipeline).
 */
export type SharedRunStatus =
  | 'queued'
  | 'running'
  | 'waiting'
  | 'success'
  | 'fail'
  | 'cancelled'
  | 'interrupted'
  | 'dead';

/** Every {@link SharedRunStatus}, for option checks and messages. */
export const SHARED_RUN_STATUSES: readonly SharedRunStatus[] = [
  'queued',
  'running',
  'waiting',
  'success',
  'fail',
  'cancelled',
  'interrupted',
  'dead',
];

/** One run of the list (also the shape of `attractor runs --json`). */
export interface SharedRunEntry {
  readonly runId: string;
  readonly status: SharedRunStatus;
  readonly graphName: string;
  /** ISO-8601; when it was enqueued for a run no worker started yet. */
  readonly startedAt: string;
  readonly currentNode?: string;
  readonly endedAt?: string;
  readonly worker?: string;
  /** The stage of the gate it waits at. */
  readonly waitingAt?: string;
  /** Why it failed outside its pipeline (the queue's record): always set for `dead`. */
  readonly reason?: string;
}

/**
 * The queue states that change how a run of the store is listed (see {@link listSharedRuns}) or list a run the store
 * does not have yet; a run in another state (`running`, `success`) is listed as its store says.
 */
const STATES_OVER_THE_STORE = ['queued', 'waiting', 'cancelled', 'fail'] as const;

/**
 * Lists the runs of `catalog` and `queue` (either may be absent), optionally of one graph, newest first (by start,
 * then by id). Reads each once: the run index (file stores keep one, see `createFileRunCatalog`) and the queue's
 * states (`RunQueue.listRunStates`, no requests); with a catalog, only the queue's runs whose state changes the
 * listing, so an entry has its `worker` only when that state is one of them: {@link addWorkers} sets it for the
 * entries shown.
 */
export async function listSharedRuns(options: {
  readonly catalog?: RunCatalog;
  readonly queue?: Pick<RunQueueReader, 'listRunStates'>;
  readonly graph?: string;
}): Promise<SharedRunEntry[]> {
  const { catalog, queue } = options;
  const [indexed, states] = await Promise.all([
    catalog?.listRuns(options.graph === undefined ? {} : { graph: options.graph }) ?? [],
    queue?.listRunStates(catalog === undefined ? {} : { states: STATES_OVER_THE_STORE }) ?? [],
  ]);
  const queued = new Map(states.map((run) => [run.runId, run]));
  const entries = indexed.map((run) => storeEntry(run, queued.get(run.runId)));
  for (const run of indexed) queued.delete(run.runId);
  for (const run of queued.values()) {
    // A run the store does not list yet: still queued, cancelled or failed before a worker wrote it. Without a store,
    // every run of the queue.
    if (catalog !== undefined && run.state !== 'queued' && run.state !== 'cancelled' && run.state !== 'fail')
      continue;
    if (options.graph !== undefined && run.graphName !== options.graph) continue;
    entries.push(queueOnlyEntry(run));
  }
  return entries.sort(newestFirst);
}

/**
 * One page of {@link listSharedRuns}, filtered by `status`, and how many runs all pages hold. With a catalog that
 * counts (`RunCatalog.countRuns`: PostgreSQL) and no status filter, reads only the page's depth of the run index (its
 * newest `offset + limit` runs), its count, the queue's runs whose state changes the listing, and which of those the
 * store has: 10,000 runs are not read to show 50. Otherwise lists them all and cuts the page.
 * @param options.limit - runs per page; 0: all.
 */
export async function listSharedRunsPage(options: {
  readonly catalog?: RunCatalog;
  readonly queue?: Pick<RunQueueReader, 'listRunStates'>;
  readonly graph?: string;
  readonly status?: SharedRunStatus;
  readonly offset: number;
  readonly limit: number;
}): Promise<{ readonly entries: SharedRunEntry[]; readonly total: number }> {
  const { catalog, queue, graph, offset, limit } = options;
  if (catalog?.countRuns === undefined || options.status !== undefined || limit === 0) {
    const all = (
      await listSharedRuns({
        ...(catalog === undefined ? {} : { catalog }),
        ...(queue === undefined ? {} : { queue }),
        ...(graph === undefined ? {} : { graph }),
      })
    ).filter((entry) => options.status === undefined || entry.status === options.status);
    return { entries: limit === 0 ? all : all.slice(offset, offset + limit), total: all.length };
  }
  const byGraph = graph === undefined ? {} : { graph };
  const [newest, stored, states] = await Promise.all([
    catalog.listRuns({ ...byGraph, limit: offset + limit }),
    catalog.countRuns(byGraph),
    queue?.listRunStates({ states: STATES_OVER_THE_STORE }) ?? [],
  ]);
  const queued = new Map(states.map((run) => [run.runId, run]));
  const shown = new Set(newest.map((run) => run.runId));
  // The queue's runs the store does not list yet (still queued, cancelled or failed before a worker wrote them).
  const others = states.filter((run) => !shown.has(run.runId));
  const known =
    others.length === 0
      ? new Set<string>()
      : new Set((await catalog.listRuns({ runIds: others.map((run) => run.runId) })).map((run) => run.runId));
  const queueOnly = others.filter(
    (run) =>
      !known.has(run.runId) &&
      // As listSharedRuns: a run the store lacks is listed when still queued, cancelled or failed before a worker
      // wrote it (a waiting one has been written).
      run.state !== 'waiting' &&
      (graph === undefined || run.graphName === graph),
  );
  const entries = [
    ...newest.map((run) => storeEntry(run, queued.get(run.runId))),
    ...queueOnly.map(queueOnlyEntry),
  ].sort(newestFirst);
  return { entries: entries.slice(offset, offset + limit), total: stored + queueOnly.length };
}

/** A run of the store's index as listed, with the queue's view of it (`inQueue`, when the queue has one). */
function storeEntry(run: RunIndexEntry, inQueue: QueuedRunSummary | undefined): SharedRunEntry {
  const status = sharedRunStatus(run.status, inQueue);
  return {
    runId: run.runId,
    status,
    graphName: run.graphName,
    startedAt: run.startedAt,
    ...(run.currentNode === undefined ? {} : { currentNode: run.currentNode }),
    ...(run.endedAt === undefined ? {} : { endedAt: run.endedAt }),
    ...(inQueue?.worker === undefined ? {} : { worker: inQueue.worker }),
    ...(status === 'waiting' && inQueue?.waitingAt !== undefined ? { waitingAt: inQueue.waitingAt } : {}),
    ...(status === 'fail' || status === 'dead' ? reasonOf(inQueue) : {}),
  };
}

/** A run only the queue knows, as listed. */
function queueOnlyEntry(run: QueuedRunSummary): SharedRunEntry {
  const status = queueStatus(run);
  return {
    runId: run.runId,
    status,
    graphName: run.graphName,
    startedAt: run.startedAt ?? run.enqueuedAt,
    ...(run.endedAt === undefined ? {} : { endedAt: run.endedAt }),
    ...(run.worker === undefined ? {} : { worker: run.worker }),
    ...(run.waitingAt === undefined ? {} : { waitingAt: run.waitingAt }),
    ...(status === 'fail' || status === 'dead' ? reasonOf(run) : {}),
  };
}

/** Newest first: by start time, then by run id. */
function newestFirst(left: SharedRunEntry, right: SharedRunEntry): number {
  return left.startedAt === right.startedAt
    ? compare(right.runId, left.runId)
    : compare(right.startedAt, left.startedAt);
}

/**
 * Where a run of the store stands when the queue is read too (`runs`, `inspect`): the queue knows best whether a run
 * waits for a worker or an answer, was cancelled while it waited, or failed outside the pipeline (its job used up its
 * retries: `dead`) before its log says so; otherwise the run index's status.
 *
 * @param indexStatus - the run index's status of the run (`RunCatalog.readRunEntry`, `listRuns`).
 * @param inQueue - the queue's record of the run, or undefined when no queue is set or it does not know the run.
 */
export function sharedRunStatus(
  indexStatus: RunIndexEntry['status'],
  inQueue: Pick<QueuedRunSummary, 'state' | 'deadAt'> | undefined,
): SharedRunStatus {
  const ended = indexStatus === 'success' || indexStatus === 'fail' || indexStatus === 'cancelled';
  return inQueue !== undefined &&
    (inQueue.state === 'waiting' ||
      inQueue.state === 'queued' ||
      inQueue.state === 'cancelled' ||
      (inQueue.state === 'fail' && (!ended || inQueue.deadAt !== undefined)))
    ? queueStatus(inQueue)
    : indexStatus;
}

/**
 * `entries` with the worker the queue records for each (the one that ran it last), read for these runs only: a page of
 * {@link listSharedRuns} shows its workers without the whole queue being read.
 */
export async function addWorkers(
  entries: readonly SharedRunEntry[],
  queue: Pick<RunQueueReader, 'listRunStates'> | undefined,
): Promise<SharedRunEntry[]> {
  const missing = entries.filter((entry) => entry.worker === undefined).map((entry) => entry.runId);
  if (queue === undefined || missing.length === 0) return [...entries];
  const workers = new Map(
    (await queue.listRunStates({ runIds: missing })).flatMap((run) =>
      run.worker === undefined ? [] : [[run.runId, run.worker] as const],
    ),
  );
  return entries.map((entry) => {
    const worker = workers.get(entry.runId);
    return worker === undefined || entry.worker !== undefined ? entry : { ...entry, worker };
  });
}

function queueStatus(run: Pick<QueuedRunSummary, 'state' | 'deadAt'>): SharedRunStatus {
  return run.state === 'fail' && run.deadAt !== undefined ? 'dead' : run.state;
}

function reasonOf(run: QueuedRunSummary | undefined): { readonly reason?: string } {
  return run?.error === undefined ? {} : { reason: run.error };
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
