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
   * Opens another run by its `logsRoot` (the source of a fork, named by the checkpoint's `origin.logs_root`), e.g.
   * `(logsRoot) => createFileRunStore({ logsRoot })`; the stores it returns are closed after reading. Without it a
   * fork's source run is not counted.
   */
  readonly openRun?: (logsRoot: string) => RunStore;
  /** Count only up to the fork point (see {@link CountSimulationCallsOptions.until}). Default: every event. */
  readonly until?: CountSimulationCallsOptions['until'];
}

/**
 * Reads how many calls each node made in a run, from its records: its events, the events of the sub-pipeline runs
 * kept in its stages (each visit's, also those archived under `visits/`), and, for a run forked from another
 * (manifest `forked_from`), the source run's calls up to the fork point (recursively, for a fork of a fork): a fork
 * continues the scripts where the source run was after the stage it forks at. With `until`, the sub-pipeline runs
 * of every stage are counted, also those of stages after the fork point. The CLI
 * passes the result to `createSimulationBackend({ calls })` and `createDefaultRegistry({ calls })` when it resumes a
 * run with `--simulate-script`, so the resumed run takes each node's next step, as the uninterrupted run would have.
 *
 * @returns calls per node id (an empty map for a run that has not started).
 * @throws what the store throws when it cannot be read (a malformed checkpoint: `CheckpointCorruptError`).
 */
export async function readSimulationCalls(options: ReadSimulationCallsOptions): Promise<Map<string, number>> {
  const { store } = options;
  const calls = countSimulationCalls(
    await store.readEvents(),
    options.until === undefined ? {} : { until: options.until },
  );
  // Sub-pipeline runs record their events in their own store, under the stage that ran them.
  for (const stagePath of await store.listStages()) {
    for (const childPath of childRunPaths(await store.listStageFiles(stagePath))) {
      const child = store.child(`${stagePath}/${childPath}`);
      add(calls, await readSimulationCalls({ store: child }));
    }
  }
  const origin = (await store.readManifest())?.forked_from;
  if (origin !== undefined && options.openRun !== undefined) {
    const source = options.openRun(origin.logs_root);
    try {
      add(
        calls,
        await readSimulationCalls({
          store: source,
          openRun: options.openRun,
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
