/**
 * The server on a shared run store (issue 18): runs are listed and shown from the store (`RunCatalog.listRuns`,
 * `readRun`, `readEvents`), whichever worker executes them; starting, resuming and forking enqueue; answers and
 * cancels go through the queue, which reaches the run wherever it executes (or waits, suspended, holding no worker).
 */
import {
  inputContextValues,
  type PipelineEvent,
  type RunIndexEntry,
  type RunStore,
  readRun,
  type SecretMasker,
} from '@attractor/engine';
import { BUILT_IN_HANDLER_TYPE_NAMES, type Graph, prepareGraph } from '@attractor/graph';
import type { SSEStreamingApi } from 'hono/streaming';
import { checkRunInputs } from './check-run-inputs.js';
import { readChildRunDetails } from './child-run-details.js';
import { openStoredChildRun, type StoredChildRun } from './child-run-directory.js';
import { ApiError } from './errors/api-error.js';
import { findShellAccess, toolsNotAllowedError } from './find-shell-access.js';
import { followChildRuns } from './follow-child-runs.js';
import type { PendingQuestion } from './http-interviewer.js';
import { DEFAULT_PIPELINE_LIMITS } from './pipeline-limits.js';
import { createPipelineValidator, type PipelineValidator } from './pipeline-validator.js';
import type { NodeDisplayStatus } from './render-run-graph.js';
import { runActiveError } from './run-active-error.js';
import type { BackplaneQueuedRun, RunBackplane, SharedRunStore } from './run-backplane.js';
import { readChildRunGraph, readForkSourceFile, readRunSourceFile } from './run-source-file.js';
import {
  inheritedStageStatuses,
  pastRunSummary,
  type RunDetails,
  type RunState,
  type RunSummary,
  stageStatusesFromEvents,
  statusesFromOutcomes,
  waitingQuestionOf,
} from './run-summary.js';
import {
  addEventToTotals,
  createRunTotals,
  indexSummaryFields,
  type TotalsSummaryFields,
  totalsSummaryFields,
} from './run-totals.js';
import {
  describeStoredStageDirectory,
  readStoredStageFile,
  readStoredStageListing,
} from './stage-directory-files.js';

/** Options of {@link createSharedStoreBackplane}. */
export interface SharedStoreBackplaneOptions extends SharedRunStore {
  /** Masks secrets in everything sent. */
  readonly secrets: SecretMasker;
  /** Sleeps `ms` (rejects when `signal` aborts). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** ISO-8601 now. */
  readonly now: () => string;
  /** Simulate the LLM stages of every run started here (`attractor serve --simulate`). Default: false. */
  readonly simulateAll?: boolean;
  /** Accept pipelines that can run shell commands (on the workers). Default: false. */
  readonly allowTools?: boolean;
  /**
   * Validates the pipelines started here, within limits and one burst at a time (`startServer` passes its run
   * manager's). Default: one of its own with the default limits.
   */
  readonly validator?: PipelineValidator;
}

/** The events that end a run. */
const ENDS: ReadonlySet<string> = new Set(['pipeline.completed', 'pipeline.failed', 'pipeline.cancelled']);

/** Creates the {@link RunBackplane} of a shared run store and queue. */
export function createSharedStoreBackplane(options: SharedStoreBackplaneOptions): RunBackplane {
  const { catalog, queue, secrets } = options;
  const pollMs = options.pollMs ?? 500;
  const closing = new AbortController();
  const streams = new Set<Promise<void>>();
  /** Streams waiting for a change, woken by the store's notifications (one subscription for all). */
  const waiters = new Set<(runId: string) => void>();
  const unsubscribe = options.subscribe?.((runId) => {
    for (const waiter of [...waiters]) waiter(runId);
  });

  /**
   * Follows the changes of `runId` (or of any run, when undefined) for as long as `signal` is not aborted: `next()`
   * resolves at the first change since the previous `next()` (at once when one came meanwhile), or after `pollMs`.
   */
  const followChanges = (runId: string | undefined, signal: AbortSignal): { next(): Promise<void> } => {
    let changed = false;
    let wake: (() => void) | undefined;
    const waiter = (id: string) => {
      if (runId !== undefined && id !== runId) return;
      changed = true;
      wake?.();
    };
    waiters.add(waiter);
    signal.addEventListener('abort', () => {
      waiters.delete(waiter);
      wake?.();
    });
    return {
      async next() {
        if (!changed && !signal.aborted) {
          const controller = new AbortController();
          wake = () => controller.abort();
          await options.sleep(pollMs, controller.signal).catch(() => undefined);
          wake = undefined;
        }
        changed = false;
      },
    };
  };

  const track = (stream: Promise<void>): Promise<void> => {
    streams.add(stream);
    return stream.finally(() => streams.delete(stream));
  };

  const notFound = (runId: string): ApiError =>
    new ApiError({
      status: 404,
      code: 'RUN_NOT_FOUND',
      message: `No run "${runId}" in the run store ${catalog.location}.`,
    });

  const queuedSummary = (run: BackplaneQueuedRun): RunSummary => {
    const graphName = graphNameOf(run.request.source) ?? run.runId;
    return {
      id: run.runId,
      graphName,
      goal: '',
      state: run.state,
      ...(run.error === undefined ? {} : { failureReason: run.error }),
      startedAt: run.enqueuedAt,
      live: run.state === 'queued' || run.state === 'running' || run.state === 'waiting',
      resumable: false,
      ...questionFields(run.state, run),
    };
  };

  /**
   * The totals of ended runs whose catalog keeps none in its index (a file catalog on a shared volume: its entries of
   * ended runs have no `durationMs`), folded once from their event logs, by run id and end; at most 1,000.
   */
  const foldedTotals = new Map<string, TotalsSummaryFields>();
  const entryTotals = async (entry: RunIndexEntry): Promise<TotalsSummaryFields> => {
    if (entry.endedAt === undefined || entry.durationMs !== undefined) return indexSummaryFields(entry);
    const key = `${entry.runId}\u0000${entry.endedAt}`;
    let fields = foldedTotals.get(key);
    if (fields === undefined) {
      const totals = createRunTotals();
      for (const event of await openRun(entry.runId)
        .readEvents()
        .catch(() => []))
        addEventToTotals(totals, event);
      fields = totalsSummaryFields(totals);
      if (foldedTotals.size >= 1000) foldedTotals.delete(foldedTotals.keys().next().value!);
      foldedTotals.set(key, fields);
    }
    return fields;
  };

  const indexSummary = async (
    entry: RunIndexEntry,
    queued: BackplaneQueuedRun | undefined,
  ): Promise<RunSummary> => {
    const state = combineStates(entry.status, queued?.state);
    const live = state === 'queued' || state === 'running' || state === 'waiting';
    return {
      id: entry.runId,
      graphName: entry.graphName,
      goal: entry.goal,
      state,
      startedAt: entry.startedAt,
      live,
      resumable:
        queued !== undefined && (state === 'fail' || state === 'cancelled' || state === 'interrupted'),
      ...(entry.currentNode === undefined || state === 'success' ? {} : { currentNode: entry.currentNode }),
      ...questionFields(state, queued),
      // The PostgreSQL catalog keeps the totals as the run's events are appended: a list reads no event log.
      ...(await entryTotals(entry)),
      ...(entry.archivedAt === undefined ? {} : { archived: true as const }),
    };
  };

  const list = async (): Promise<RunSummary[]> => {
    const [entries, queued] = await Promise.all([
      catalog.listRuns({ limit: 500 }),
      queue.listRuns({ limit: 500 }),
    ]);
    const byId = new Map(queued.map((run) => [run.runId, run]));
    const summaries = await Promise.all(entries.map((entry) => indexSummary(entry, byId.get(entry.runId))));
    const listed = new Set(entries.map((entry) => entry.runId));
    // Runs the store knows nothing of yet: queued, or taken by a worker that has not written their manifest.
    for (const run of queued) if (!listed.has(run.runId)) summaries.push(queuedSummary(run));
    summaries.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    return secrets.mask(summaries);
  };

  /** Parsed graphs by run id (and child path), at most 256. */
  const graphs = new Map<string, Graph>();
  const cacheGraph = (key: string, graph: Graph): Graph => {
    if (graphs.size >= 256) graphs.delete(graphs.keys().next().value!);
    graphs.set(key, graph);
    return graph;
  };
  /** The graph of a top run, from the DOT source its queue entry holds; undefined when not known here. */
  const topGraph = async (runId: string): Promise<Graph | undefined> => {
    const cached = graphs.get(runId);
    if (cached !== undefined) return cached;
    const source = (await queue.readRun(runId))?.request.source;
    const graph = source === undefined ? undefined : prepareGraph(source).graph;
    return graph === undefined ? undefined : cacheGraph(runId, graph);
  };
  /** The graph of a child run, from the DOT file its manifest names. */
  const childGraph = async (runId: string, child: StoredChildRun): Promise<Graph> => {
    const key = `${runId}\u0000${child.path}`;
    return graphs.get(key) ?? cacheGraph(key, await readChildRunGraph(child.store, child.path));
  };

  /** The child run at `path` of a run the store or the queue knows. @throws {ApiError} 404 / 400. */
  const findChild = async (runId: string, path: string): Promise<StoredChildRun> =>
    openStoredChildRun(await knownRun(runId), path);

  /** The store of a run, or with `child`, of its child run. @throws {ApiError} 404 / 400. */
  const runOrChild = async (runId: string, child: string | undefined): Promise<RunStore> =>
    child === undefined ? knownRun(runId) : (await findChild(runId, child)).store;

  const childDetails = async (runId: string, path: string): Promise<RunDetails> => {
    const child = await findChild(runId, path);
    const top = openRun(runId);
    const [queued, lock] = await Promise.all([queue.readRun(runId), top.readLock()]);
    const parentLive =
      queued === undefined
        ? lock !== undefined
        : queued.state === 'queued' || queued.state === 'running' || queued.state === 'waiting';
    return secrets.mask(
      await readChildRunDetails({
        runId,
        child,
        store: child.store,
        parentLive,
        graph: await childGraph(runId, child).catch(() => undefined),
      }),
    );
  };

  const details = async (runId: string, child?: string): Promise<RunDetails> =>
    child === undefined ? topDetails(runId) : childDetails(runId, child);

  /** The stage statuses a fork inherits from its source run's events ({@link inheritedStageStatuses}). */
  const forkInheritedStatuses = async (
    origin: { readonly run_id: string; readonly node: string; readonly visit: number } | undefined,
  ): Promise<Record<string, NodeDisplayStatus>> => {
    if (origin === undefined) return {};
    // None when the source run was deleted or cannot be read: the checkpoint's outcomes still show.
    const events = await Promise.resolve()
      .then(() => openRun(origin.run_id).readEvents())
      .catch(() => []);
    return inheritedStageStatuses(events, { runId: origin.run_id, node: origin.node, visit: origin.visit });
  };

  const topDetails = async (runId: string): Promise<RunDetails> => {
    const store = openRun(runId);
    const [record, events, queued, entry] = await Promise.all([
      readRun(store, { stages: false }),
      store.readEvents(),
      queue.readRun(runId),
      catalog.readRunEntry(runId),
    ]);
    if (record.manifest === undefined) {
      if (queued === undefined) throw notFound(runId);
      return secrets.mask({
        ...queuedSummary(queued),
        completedNodes: [],
        nodeStatuses: {},
        waitingNodes: [],
        stages: [],
        stageDirectories: [],
      });
    }
    const finalEvent = [...events]
      .reverse()
      .find((event) => ENDS.has(event.type) || event.type === 'pipeline.started');
    const base = pastRunSummary({
      id: runId,
      manifest: record.manifest,
      checkpoint: record.checkpoint,
      finalEvent:
        finalEvent === undefined || finalEvent.type === 'pipeline.started'
          ? undefined
          : {
              type: finalEvent.type,
              ...('reason' in finalEvent ? { reason: String(finalEvent.reason) } : {}),
            },
      startedByServer: queued !== undefined,
    });
    // Tokens, cost and timing of the run's own events, as the local server sums them.
    const totals = createRunTotals();
    for (const event of events) if (event.runId === runId) addEventToTotals(totals, event);
    // The run index's status (waiting at a gate, suspended or not; interrupted when no live runner holds it), as
    // the list shows it; a run continued elsewhere by a `loop_restart` is not in the index: `restarted`.
    const state = combineStates(entry?.status ?? base.state, queued?.state);
    const live = state === 'queued' || state === 'running' || state === 'waiting';
    const waitingNodes = state === 'waiting' ? openInterviewStages(events) : [];
    const completedNodes = record.checkpoint?.completed_nodes ?? [];
    const graph = await topGraph(runId);
    const listing = await readStoredStageListing(
      store,
      graph === undefined ? completedNodes : [...graph.nodes.keys()],
    );
    return secrets.mask({
      ...base,
      ...totalsSummaryFields(totals),
      state,
      live,
      resumable:
        queued !== undefined && (state === 'fail' || state === 'cancelled' || state === 'interrupted'),
      ...questionFields(state, queued),
      completedNodes,
      // Stages inside parallel branches have no outcome in the checkpoint: their events tell (a fork's inherited
      // ones, those of its source run up to the fork point).
      nodeStatuses: {
        ...(await forkInheritedStatuses(record.manifest.forked_from)),
        ...stageStatusesFromEvents(
          events.filter((event) => event.runId === runId),
          { live },
        ),
        ...(live ? {} : statusesFromOutcomes(record.checkpoint?.node_outcomes ?? {})),
      },
      waitingNodes,
      stages: listing.stages,
      stageDirectories: listing.stageDirectories,
      ...(entry?.archivedAt === undefined ? {} : { archived: true as const }),
      ...(record.manifest.forked_from === undefined
        ? {}
        : {
            forkedFrom: {
              runId: record.manifest.forked_from.run_id,
              node: record.manifest.forked_from.node,
              visit: record.manifest.forked_from.visit,
            },
          }),
    });
  };

  const openRun = (runId: string): RunStore => {
    try {
      return catalog.open(runId);
    } catch {
      throw notFound(runId);
    }
  };

  const streamEvents = (
    stream: SSEStreamingApi,
    runId: string,
    lastEventId: number,
    childPath?: string,
    follow = true,
  ): Promise<void> =>
    track(
      (async () => {
        const top = openRun(runId);
        const child = childPath === undefined ? undefined : await findChild(runId, childPath);
        const store = child?.store ?? top;
        const ownRunId = child?.runId ?? runId;
        /** Whether an event of the streamed store ends the streamed run (not one of its parallel branches). */
        const ends = (event: PipelineEvent): boolean =>
          ENDS.has(event.type) &&
          event.runId === ownRunId &&
          (child === undefined || (event.branchPath ?? []).length === child.basePath.length);
        const aborted = new AbortController();
        stream.onAbort(() => aborted.abort());
        closing.signal.addEventListener('abort', () => aborted.abort(), { once: true });
        let lastSent = lastEventId;
        let ended = false;
        // A child stream also ends with its top run (a child cut short has no end of its own).
        let topSeq = 0;
        const changes = followChanges(runId, aborted.signal);
        // The child runs' events go out too, without ids (their seq is their own), as they are written.
        const follower = followChildRuns(store, child?.path);
        let first = true;
        while (!aborted.signal.aborted && !ended) {
          // The first read takes every event: the follower needs the run's whole walk to find its children.
          const events = await store.readEvents({ afterSeq: first ? 0 : lastSent });
          let batch = '';
          for (const event of events) {
            if (event.seq <= lastSent) continue;
            batch += `data: ${JSON.stringify(secrets.mask(event))}\nid: ${event.seq}\n\n`;
            lastSent = event.seq;
            if (ends(event)) ended = true;
          }
          // A reconnecting client has seen the child events written before it went away.
          for (const event of await follower.next(events, { send: !first || lastEventId === 0 }))
            batch += `data: ${JSON.stringify(secrets.mask(event))}\n\n`;
          if (batch !== '' && !aborted.signal.aborted) await stream.write(batch);
          first = false;
          if (!ended && child !== undefined) {
            for (const event of await top.readEvents({ afterSeq: topSeq })) {
              topSeq = Math.max(topSeq, event.seq);
              if (ENDS.has(event.type) && event.runId === runId) ended = true;
            }
          }
          if (!follow) break;
          if (!ended) await changes.next();
        }
        if (aborted.signal.aborted) return;
        aborted.abort();
        const summary = await details(runId, childPath);
        await stream.writeSSE({ event: 'end', data: JSON.stringify({ state: summary.state }) });
      })(),
    );

  const streamChanges = (stream: SSEStreamingApi): Promise<void> =>
    track(
      (async () => {
        const aborted = new AbortController();
        stream.onAbort(() => aborted.abort());
        closing.signal.addEventListener('abort', () => aborted.abort(), { once: true });
        await stream.writeSSE({ event: 'ready', data: '{}' });
        const seen = new Map<string, string>();
        const changes = followChanges(undefined, aborted.signal);
        let first = true;
        while (!aborted.signal.aborted) {
          const summaries = await list().catch(() => undefined);
          for (const summary of summaries ?? []) {
            const text = JSON.stringify(summary);
            if (seen.get(summary.id) === text) continue;
            seen.set(summary.id, text);
            if (!first && !aborted.signal.aborted) await stream.writeSSE({ event: 'run', data: text });
          }
          if (summaries !== undefined) {
            const listed = new Set(summaries.map((summary) => summary.id));
            for (const id of [...seen.keys()]) {
              if (listed.has(id) || aborted.signal.aborted) continue;
              seen.delete(id);
              await stream.writeSSE({ event: 'removed', data: JSON.stringify({ id }) });
            }
          }
          first = false;
          // At most one listing per 250 ms however many events arrive.
          await options.sleep(250, aborted.signal).catch(() => undefined);
          await changes.next();
        }
      })(),
    );

  const summaryOf = async (runId: string): Promise<RunSummary> => {
    const {
      completedNodes: _c,
      nodeStatuses: _n,
      waitingNodes: _w,
      stages: _s,
      stageDirectories: _d,
      ...summary
    } = await details(runId);
    return summary;
  };

  const requireQueued = async (runId: string): Promise<BackplaneQueuedRun> => {
    const queued = await queue.readRun(runId);
    if (queued === undefined) {
      throw new ApiError({
        status: 404,
        code: 'RUN_NOT_FOUND',
        message: `Run "${runId}" is not in the run queue, so it cannot be steered from here (it was not enqueued).`,
      });
    }
    return queued;
  };

  /** Refuses a graph that can run shell commands unless tools are allowed (the workers would run them). */
  const checkTools = (graph: Graph): void => {
    if (options.allowTools === true) return;
    const access = findShellAccess({
      graph,
      handlerTypeOf: (nodeId) => graph.handlerType(graph.node(nodeId)!),
    });
    if (access.length === 0) return;
    throw toolsNotAllowedError(access);
  };

  const validator =
    options.validator ??
    createPipelineValidator({ limits: DEFAULT_PIPELINE_LIMITS, allowTools: options.allowTools === true });

  const enqueue = async (request: Parameters<RunBackplane['start']>[0]): Promise<RunSummary> => {
    // The workers' handlers are not known here: the built-in ones are checked.
    const graph = await validator.prepare({
      source: request.source,
      filename: request.filename ?? 'pipeline.dot',
      handlers: {
        types: BUILT_IN_HANDLER_TYPE_NAMES,
        handlerTypeOf: (checked, nodeId) => checked.handlerType(checked.node(nodeId)!),
      },
    });
    // Checked here, carried to the worker as the input.<name> keys of the initial context (the engine reads them).
    const inputs = await checkRunInputs({
      graph,
      ...(request.inputs === undefined ? {} : { inputs: request.inputs }),
      ...(request.context === undefined ? {} : { context: request.context }),
    });
    const context =
      Object.keys(inputs).length === 0
        ? request.context
        : { ...request.context, ...inputContextValues(inputs) };
    const runOptions = {
      ...(request.simulate === true || options.simulateAll === true ? { simulate: true } : {}),
      ...(request.model === undefined ? {} : { model: request.model }),
      ...(request.provider === undefined ? {} : { provider: request.provider }),
      ...(options.workspaceMode === undefined ? {} : { workspace: options.workspaceMode }),
    };
    const runId = await queue
      .enqueueRun({
        source: request.source,
        ...(request.filename === undefined ? {} : { filename: request.filename }),
        graphName: graph.id,
        ...(context === undefined ? {} : { context }),
        options: runOptions,
      })
      .catch((error: unknown) => {
        // The queue stores no secret: one outside a secret-named key of the context is the request's to fix.
        if ((error as { code?: unknown }).code !== 'SECRET_IN_REQUEST') throw error;
        throw new ApiError({ status: 400, code: 'INVALID_REQUEST', message: (error as Error).message });
      });
    return {
      id: runId,
      graphName: graph.id,
      goal: graph.settings.goal,
      // A worker takes it later: until then the run waits in the queue.
      state: 'queued',
      startedAt: options.now(),
      live: true,
      resumable: false,
      pendingQuestions: 0,
    };
  };

  /** The store of a run the store or the queue knows. @throws {ApiError} 404 otherwise. */
  const knownRun = async (runId: string): Promise<RunStore> => {
    const store = openRun(runId);
    if ((await store.readManifest()) === undefined && (await queue.readRun(runId)) === undefined) {
      throw notFound(runId);
    }
    return store;
  };

  return {
    list,
    start: enqueue,
    details,
    async graph(runId, child) {
      if (child !== undefined) return childGraph(runId, await findChild(runId, child));
      await knownRun(runId);
      const graph = await topGraph(runId);
      if (graph === undefined) {
        throw new ApiError({
          status: 404,
          code: 'NOT_FOUND',
          message: `The graph of run "${runId}" is not known here.`,
        });
      }
      return graph;
    },
    stageDirectory: async (runId, dir, child) =>
      describeStoredStageDirectory(await runOrChild(runId, child), dir),
    stageFile: async (runId, dir, name, child) =>
      readStoredStageFile(await runOrChild(runId, child), dir, name),
    streamEvents,
    streamChanges,
    openStore: knownRun,
    async cancel(runId) {
      await requireQueued(runId);
      await queue.cancelRun({ runId, reason: 'cancelled through the API' });
      return summaryOf(runId);
    },
    async remove(runId) {
      const queued = await queue.readRun(runId);
      const refusal = runActiveError({ runId, ...(queued === undefined ? {} : { state: queued.state }) });
      if (queued !== undefined && refusal !== undefined) {
        // The store says how the run ended a moment before its worker lets the queue's job go.
        const shown = await summaryOf(runId).catch(() => undefined);
        throw shown === undefined || runActiveError({ runId, state: shown.state }) !== undefined
          ? refusal
          : runActiveError({
              runId,
              state: queued.state,
              message: `Run "${runId}" has ended (${shown.state}), but its worker has not let it go yet (the queue holds it as ${queued.state}): try again in a moment.`,
            });
      }
      let removed: boolean;
      try {
        removed = await catalog.removeRun(runId);
      } catch (error) {
        throw runActiveError({ runId, error }) ?? error;
      }
      const fromQueue = await queue.removeRun?.({ runId });
      if (!removed && fromQueue?.removed !== true) throw notFound(runId);
      for (const waiter of waiters) waiter(runId);
    },
    async setArchived(runId, archived) {
      const setRunArchived = catalog.setRunArchived?.bind(catalog);
      if (setRunArchived === undefined) {
        throw new ApiError({
          status: 501,
          code: 'ARCHIVE_NOT_SUPPORTED',
          message: `The run store ${catalog.location} cannot archive runs: archive them on a PostgreSQL run store (serve --store postgres://…).`,
        });
      }
      const summary = await summaryOf(runId);
      if (archived) {
        const refusal = runActiveError({
          runId,
          state: summary.state,
          message: `Run "${runId}" is ${summary.state}: cancel it or let it end first, then archive it.`,
        });
        if (refusal !== undefined) throw refusal;
      }
      if (!(await setRunArchived({ runId, archivedAt: archived ? new Date(options.now()) : undefined })))
        throw notFound(runId);
      for (const waiter of waiters) waiter(runId);
      return summaryOf(runId);
    },
    async resume(runId) {
      await requireQueued(runId);
      try {
        await queue.resumeRun({ runId });
      } catch (error) {
        throw new ApiError({
          status: 409,
          code: 'RESUME_REFUSED',
          message: `Run "${runId}" cannot be resumed: ${(error as Error).message}`,
        });
      }
      // A run that goes on is not archived any more (only a run that ended is): it shows in the list again.
      await catalog.setRunArchived?.({ runId, archivedAt: undefined });
      return summaryOf(runId);
    },
    async fork(runId, fork) {
      // Forking only reads the source run, so any run of the store forks, also one the queue does not know
      // (`attractor run --store`): its DOT is then the file its manifest names while it still holds the graph the
      // run ran (an edited file is refused), unless the request sends one.
      const queued = await queue.readRun(runId);
      const store = openRun(runId);
      const manifest = queued === undefined ? await store.readManifest() : undefined;
      if (queued === undefined && manifest === undefined) throw notFound(runId);
      const path = manifest?.source_path;
      const source = fork.dot ?? queued?.request.source ?? (await readForkSourceFile({ runId, store }));
      const runOptions = {
        ...queued?.request.options,
        ...(fork.simulate === undefined ? {} : { simulate: fork.simulate }),
        ...(options.simulateAll === true ? { simulate: true } : {}),
      };
      const prepared = prepareGraph(source);
      if (prepared.graph === undefined) {
        throw new ApiError({
          status: 400,
          code: 'INVALID_PIPELINE',
          message: "The fork's DOT does not parse.",
        });
      }
      checkTools(prepared.graph);
      // The worker resolves relative references (graph_ref) next to the source run's DOT file, as in that run (and in
      // `attractor fork`), also for an edited DOT.
      const filename = queued?.request.filename ?? path;
      const id = await queue.enqueueRun({
        source,
        ...(filename === undefined ? {} : { filename }),
        graphName: prepared.graph.id,
        fork: { runId, at: fork.from },
        ...(fork.context === undefined ? {} : { context: fork.context }),
        ...(Object.keys(runOptions).length === 0 ? {} : { options: runOptions }),
      });
      return {
        id,
        graphName: prepared.graph.id,
        goal: prepared.graph.settings.goal,
        state: 'queued',
        startedAt: options.now(),
        live: true,
        resumable: false,
        pendingQuestions: 0,
      };
    },
    async questions(runId) {
      const queued = await requireQueued(runId);
      if (queued.state !== 'waiting' || queued.question === undefined) return [];
      const pending: PendingQuestion = {
        id: queued.question.id ?? runId,
        question: queued.question,
        askedAt: queued.askedAt ?? queued.enqueuedAt,
      };
      return secrets.mask([pending]);
    },
    async answer(runId, questionId, text) {
      const queued = await requireQueued(runId);
      if (queued.state !== 'waiting' || queued.question === undefined) {
        throw new ApiError({
          status: 404,
          code: 'QUESTION_NOT_FOUND',
          message: `Run "${runId}" waits at no gate, so it has no pending question "${questionId}".`,
        });
      }
      try {
        return await queue.answerRun({ runId, text });
      } catch (error) {
        const reason = (error as { reason?: string }).reason;
        if (reason === 'no_such_option') {
          throw new ApiError({ status: 400, code: 'INVALID_ANSWER', message: (error as Error).message });
        }
        if (reason !== undefined) {
          throw new ApiError({ status: 404, code: 'QUESTION_NOT_FOUND', message: (error as Error).message });
        }
        throw error;
      }
    },
    async checkpoint(runId, child) {
      return (child === undefined ? openRun(runId) : await runOrChild(runId, child)).readCheckpoint();
    },
    async checkpointHistory(runId, child) {
      return (await runOrChild(runId, child)).readCheckpointHistory();
    },
    async source(runId) {
      const queued = await queue.readRun(runId);
      if (queued !== undefined) return queued.request.source;
      // Not enqueued (written by an engine run): the DOT file its manifest names, while it holds the run's graph.
      const store = openRun(runId);
      if ((await store.readManifest()) === undefined) throw notFound(runId);
      return readRunSourceFile({ runId, store });
    },
    async close() {
      unsubscribe?.();
      closing.abort();
      await Promise.race([
        Promise.allSettled([...streams]),
        new Promise((resolve) => setTimeout(resolve, 2000).unref()),
      ]);
    },
  };
}

/**
 * A run's state from the store's and the queue's views, as `attractor runs` combines them: queued (again, after a
 * resume or an answer) until a worker takes it; else an end the store recorded wins (the worker marks the queue a
 * moment later); else the queue's state (it knows a suspended run waits), else the store's.
 */
function combineStates(stored: RunState, queued: BackplaneQueuedRun['state'] | undefined): RunState {
  if (queued === 'queued') return 'queued';
  if (stored === 'success' || stored === 'fail' || stored === 'cancelled') return stored;
  return queued ?? stored;
}

/**
 * `pendingQuestions` and `waitingQuestion` of a run in `state`: a waiting run asks the question its queue entry holds
 * (a worker suspends the run at every gate and records the question there; the `questions` route answers with it).
 */
function questionFields(
  state: RunState,
  queued: BackplaneQueuedRun | undefined,
): Pick<RunSummary, 'pendingQuestions' | 'waitingQuestion'> {
  if (state !== 'waiting' || queued?.question === undefined) return { pendingQuestions: 0 };
  return {
    pendingQuestions: 1,
    waitingQuestion: waitingQuestionOf({ id: queued.question.id ?? queued.runId, question: queued.question }),
  };
}

/** The stages whose interview is open at the end of the event log. */
function openInterviewStages(events: readonly PipelineEvent[]): string[] {
  const open = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'interview.started') open.set(event.question.id ?? event.stage, event.stage);
    else if (event.type === 'interview.completed' || event.type === 'interview.timeout')
      open.delete(event.question.id ?? '');
  }
  return [...new Set(open.values())];
}

/** The graph name of DOT source, without a full parse (`digraph name {`). */
function graphNameOf(source: string): string | undefined {
  return /\bdigraph\s+("?)([\w.-]+)\1/.exec(source)?.[2];
}
