/**
 * How many calls each node already made in a run, read from the run's own records (its events, its sub-pipeline
 * runs' events and, for a fork, the source run's events up to the fork point), so a resumed or forked run with a
 * simulation script takes each node its next step (the CLI's `--simulate-script`).
 */
import type { PipelineEvent, RunStore } from '@attractor/engine';

/** Options of {@link countSimulationCalls}. */
export interface CountSimulationCallsOptions {
  /**
   * Count only up to and including the top-level (no `branchPath`) `stage.completed` event of this node and visit:
   * the fork point of a forked run (`at` of `forkRun`). `visit` absent: the node's last completed visit. Default:
   * every event.
   */
  readonly until?: { readonly node: string; readonly visit?: number };
}

/**
 * Counts the finished calls per node id in a run's events: each attempt (`stage.started`) that ended with a
 * `stage.failed` (a failure, retried or not) or a `stage.completed` is one call, whatever its branch (parallel
 * branches and sub-pipelines share the node-id keys of the script). An attempt the run never finished (the process
 * was killed or cancelled during it) is no call: the resumed run repeats it with the same step.
 *
 * @param events - one run's events in `seq` order (`RunStore.readEvents()`).
 * @returns calls per node id; nodes without a finished attempt are absent.
 * @example
 * const calls = countSimulationCalls(await store.readEvents()); // Map { 'summarize' => 1 }
 */
export function countSimulationCalls(
  events: Iterable<PipelineEvent>,
  options: CountSimulationCallsOptions = {},
): Map<string, number> {
  const calls = new Map<string, number>();
  const open = new Set<string>();
  const all = [...events];
  const last = options.until === undefined ? all.length - 1 : untilIndex(all, options.until);
  for (const event of all.slice(0, last + 1)) {
    if (event.type !== 'stage.started' && event.type !== 'stage.failed' && event.type !== 'stage.completed')
      continue;
    const key = `${(event.branchPath ?? []).join('\u0000')}\u0001${event.nodeId}`;
    if (event.type === 'stage.started') {
      open.add(key);
    } else if (open.delete(key)) {
      calls.set(event.nodeId, (calls.get(event.nodeId) ?? 0) + 1);
    }
  }
  return calls;
}

/** The index of the fork point's `stage.completed` event; -1 when the events do not hold it. */
function untilIndex(
  events: readonly PipelineEvent[],
  until: { readonly node: string; readonly visit?: number },
) {
  let found = -1;
  events.forEach((event, index) => {
    if (
      event.type === 'stage.completed' &&
      event.branchPath === undefined &&
      event.nodeId === until.node &&
      (until.visit === undefined || event.visit === until.visit)
    ) {
      found = index;
    }
  });
  return found;
}

/** Options of {@link readSimulationCalls}. */
export interface ReadSimulationCallsOptions {
  /** The run: its events and its sub-pipeline runs' events are counted. */
  readonly store: RunStore;
  /**
   * Opens another run by its `logsRoot` (a fork's source run, manifest `forked_from.logs_root`; the run a
   * `loop_restart` continuation continues, manifest `restarted_from`), e.g.
   * `(logsRoot) => createFileRunStore({ logsRoot, createDirectory: false })`; the stores it returns are closed after
   * reading. Without it those runs are not counted.
   */
  readonly openRun?: (logsRoot: string) => RunStore;
  /** Count only up to the fork point (see {@link CountSimulationCallsOptions.until}). Default: every event. */
  readonly until?: CountSimulationCallsOptions['until'];
}

/**
 * Reads how many calls each node made in a run, from its records: its events; the events of the sub-pipeline runs
 * kept in its stages (each visit's, also those archived under `visits/`); for the continuation of a `loop_restart`
 * (manifest `restarted_from`), the calls of the run it continues (and a run a `loop_restart` continued, manifest
 * `restarted_to`, is counted as its last continuation, which resume continues); and for a run forked from another (manifest
 * `forked_from`), the source run's calls up to the fork point, sub-pipeline runs included up to the fork point's
 * time (recursively, for a fork of a fork): a fork continues the scripts where the source run was after the stage
 * it forks at. The CLI passes the result to `createSimulationBackend({ calls })` and `createDefaultRegistry({ calls })`
 * when it resumes or forks a run with `--simulate-script`, so each node takes its next step, as in the uninterrupted
 * run.
 *
 * @returns calls per node id (an empty map for a run that has not started).
 * @throws what the store throws when it cannot be read (a malformed checkpoint: `CheckpointCorruptError`).
 */
export async function readSimulationCalls(options: ReadSimulationCallsOptions): Promise<Map<string, number>> {
  // A run a loop_restart continued goes on in its continuation (resume follows it there too): count the whole chain.
  const continuation =
    options.until === undefined && options.openRun !== undefined
      ? (await options.store.readManifest())?.restarted_to
      : undefined;
  if (continuation !== undefined && options.openRun !== undefined) {
    const next = options.openRun(continuation);
    try {
      return await readSimulationCalls({ store: next, openRun: options.openRun });
    } finally {
      await next.close();
    }
  }
  return readBoundedCalls(options);
}

/** {@link readSimulationCalls} of one run directory, without following `restarted_to`. */
async function readBoundedCalls(options: ReadSimulationCallsOptions): Promise<Map<string, number>> {
  const events = await options.store.readEvents();
  const last = options.until === undefined ? events.length - 1 : untilIndex(events, options.until);
  // A fork point the events do not hold counts nothing (the engine refuses such a fork).
  const until = options.until === undefined ? undefined : last < 0 ? '' : events[last]!.timestamp;
  return readCalls(options.store, options.openRun, until, events.slice(0, last + 1));
}

/** The calls of a run whose events up to the bound are `events`; its other records up to `until` (ISO time). */
async function readCalls(
  store: RunStore,
  openRun: ReadSimulationCallsOptions['openRun'],
  until: string | undefined,
  events: readonly PipelineEvent[],
): Promise<Map<string, number>> {
  const calls = countSimulationCalls(events);
  // Sub-pipeline runs record their events in their own store, under the stage that ran them.
  for (const stagePath of await store.listStages()) {
    for (const childPath of childRunPaths(await store.listStageFiles(stagePath))) {
      const child = store.child(`${stagePath}/${childPath}`);
      const childEvents = (await child.readEvents()).filter(
        (event) => until === undefined || event.timestamp <= until,
      );
      add(calls, await readCalls(child, undefined, until, childEvents));
    }
  }
  if (openRun === undefined) return calls;
  const manifest = await store.readManifest();
  if (manifest?.restarted_from !== undefined) {
    const previous = openRun(manifest.restarted_from);
    try {
      add(calls, await readBoundedCalls({ store: previous, openRun }));
    } finally {
      await previous.close();
    }
  }
  const origin = manifest?.forked_from;
  if (origin !== undefined) {
    const source = openRun(origin.logs_root);
    try {
      add(
        calls,
        await readBoundedCalls({
          store: source,
          openRun,
          until: { node: origin.node, visit: origin.visit },
        }),
      );
    } finally {
      await source.close();
    }
  }
  return calls;
}

/** The outermost run directories among a stage's files (`child`, `visits/1/child`, `child-2`), by their `events.jsonl`. */
function childRunPaths(files: readonly { readonly name: string }[]): string[] {
  const roots = files
    .filter((file) => file.name.endsWith('/events.jsonl'))
    .map((file) => file.name.slice(0, -'/events.jsonl'.length))
    .sort();
  return roots.filter((root) => !roots.some((other) => other !== root && root.startsWith(`${other}/`)));
}

function add(into: Map<string, number>, from: ReadonlyMap<string, number>): void {
  for (const [nodeId, count] of from) into.set(nodeId, (into.get(nodeId) ?? 0) + count);
}
