/**
 * Follows the child runs (sub-pipelines, manager loops) of a run kept in a run store, for an event stream on a shared
 * store: the engine keeps a child's events in its own store (`store.child('{stagePath}/child')`, `child-2`, ...), not
 * in its parent's, so the stream finds the children from the parent's events (the stages that started or completed)
 * and reads their events as they grow, children of children included.
 */
import type { PipelineEvent, RunStore } from '@attractor/engine';
import { parseChildRunPath } from './child-run-path.js';

/** Follows a run's child runs: see {@link followChildRuns}. */
export interface ChildRunFollower {
  /**
   * Takes the next events of the followed run itself (in `seq` order, each once) and resolves with the events of its
   * child runs written since the previous call (all of them at the first call when `send`; with `send: false` the
   * ones written so far are skipped, as for a client reconnecting with `Last-Event-ID`).
   */
  next(ownEvents: readonly PipelineEvent[], options: { readonly send: boolean }): Promise<PipelineEvent[]>;
}

/** Levels of child runs inside child runs followed. */
const MAX_DEPTH = 8;

/** The events that end a run. */
const ENDS: ReadonlySet<string> = new Set(['pipeline.completed', 'pipeline.failed', 'pipeline.cancelled']);

interface FollowedRun {
  readonly store: RunStore;
  /** Its path under the top run (`checks/child`), undefined for the top run. */
  readonly path: string | undefined;
  /** How many `branchPath` segments of its events are its parent's (its `child:` prefix). */
  readonly baseLength: number;
  readonly depth: number;
  lastSeq: number;
  ended: boolean;
  /** The parallel node of each branch path (`a`, `a/x`) of its own walk. */
  readonly fans: Map<string, string>;
  /** Stage paths started and not completed. */
  readonly running: Set<string>;
  /** The index of the next child name to look for per stage (1: `child`, 2: `child-2`, ...). */
  readonly nextChild: Map<string, number>;
}

/**
 * Follows the child runs of the run in `store`, whose path under its top run is `path` (undefined for a top run).
 * A stage that is running or has just completed is looked at for a new child run (one manifest read per stage and
 * call); a child that has not ended is read from its last `seq` on at every call.
 */
export function followChildRuns(store: RunStore, path: string | undefined): ChildRunFollower {
  const root = followed(store, path, 0);
  const children: FollowedRun[] = [];

  const discover = async (run: FollowedRun, stages: Set<string>, out: PipelineEvent[], send: boolean) => {
    for (const stage of stages) {
      for (;;) {
        const index = run.nextChild.get(stage) ?? 1;
        const name = index === 1 ? 'child' : `child-${index}`;
        let childStore: RunStore;
        try {
          childStore = run.store.child(`${stage}/${name}`);
        } catch {
          break; // a stage path no child path can extend (a node id with a backslash)
        }
        if ((await childStore.readManifest()) === undefined) break;
        run.nextChild.set(stage, index + 1);
        const child = followed(
          childStore,
          `${run.path === undefined ? '' : `${run.path}/`}${stage}/${name}`,
          run.depth + 1,
        );
        children.push(child);
        await readMore(child, out, send);
      }
    }
  };

  const readMore = async (run: FollowedRun, out: PipelineEvent[], send: boolean) => {
    const events = await run.store.readEvents({ afterSeq: run.lastSeq });
    for (const event of events) run.lastSeq = Math.max(run.lastSeq, event.seq);
    if (send) out.push(...events);
    const stages = track(run, events);
    if (run.depth < MAX_DEPTH) await discover(run, stages, out, send);
  };

  return {
    async next(ownEvents, options) {
      const out: PipelineEvent[] = [];
      for (const child of [...children]) if (!child.ended) await readMore(child, out, options.send);
      await discover(root, track(root, ownEvents), out, options.send);
      return out;
    },
  };
}

function followed(store: RunStore, path: string | undefined, depth: number): FollowedRun {
  return {
    store,
    path,
    baseLength: path === undefined ? 0 : (parseChildRunPath(path)?.basePath.length ?? 0),
    depth,
    lastSeq: 0,
    ended: false,
    fans: new Map(),
    running: new Set(),
    nextChild: new Map(),
  };
}

/** Folds a run's own events into what it follows; returns the stages to look at for new child runs. */
function track(run: FollowedRun, events: readonly PipelineEvent[]): Set<string> {
  const look = new Set<string>();
  for (const event of events) {
    const relative = (event.branchPath ?? []).slice(run.baseLength);
    if (relative.some((part) => part.startsWith('child:'))) continue;
    if (event.type === 'parallel.branch.started') {
      run.fans.set([...relative, event.branch].join('/'), event.nodeId);
    } else if (event.type === 'stage.started' || event.type === 'stage.completed') {
      const stage = stagePathOf(run.fans, relative, event.nodeId);
      if (stage === undefined) continue;
      if (event.type === 'stage.started') run.running.add(stage);
      else {
        run.running.delete(stage);
        look.add(stage);
      }
    } else if (ENDS.has(event.type) && relative.length === 0) {
      run.ended = true;
    }
  }
  for (const stage of run.running) look.add(stage);
  return look;
}

/** `fan/branches/a/lint` for node `lint` in branch `a` of `fan` (nested blocks likewise); undefined when unknown. */
function stagePathOf(
  fans: ReadonlyMap<string, string>,
  branchPath: readonly string[],
  nodeId: string,
): string | undefined {
  const parts: string[] = [];
  for (let index = 0; index < branchPath.length; index++) {
    const fan = fans.get(branchPath.slice(0, index + 1).join('/'));
    if (fan === undefined) return undefined;
    parts.push(fan, 'branches', branchPath[index]!);
  }
  parts.push(nodeId);
  return parts.join('/');
}
