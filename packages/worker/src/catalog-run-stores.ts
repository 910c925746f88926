/**
 * The engine's `createRunStore` for a worker: maps the run directories the engine names (under a local root) to
 * stores of the shared run catalog, and reports the process groups a run records in its lock to the worker's
 * {@link ProcessGroupGuard}.
 */
import { relative, resolve, sep } from 'node:path';
import type { Checkpoint, PipelineEvent, RunLock, RunStore } from '@attractor/engine';

/** What a worker needs of a run catalog (`RunCatalog` of `@attractor/engine`, e.g. the PostgreSQL store's). */
export interface WorkerRunCatalog {
  /** Where it lives, for messages (no password). */
  readonly location: string;
  /** The store of one run (created on first write). */
  open(runId: string): RunStore;
}

/** Options of {@link catalogRunStores}. */
export interface CatalogRunStoresOptions {
  readonly catalog: WorkerRunCatalog;
  /** The local directory the engine's run directories are named under (`<root>/<run id>[/<child path>]`). */
  readonly root: string;
  /** Called with the process groups a run's stages are running, whenever they change. */
  readonly onProcessGroups?: (logsRoot: string, processGroupIds: readonly number[]) => void;
  /**
   * Rewrites each event before it is written (the worker writes `pipeline.suspended` in place of the
   * `pipeline.cancelled` of a suspension); `undefined` drops the event. Default: every event as it is.
   */
  readonly mapEvent?: (event: PipelineEvent) => PipelineEvent | undefined;
  /**
   * Called with the run directory each time a checkpoint is handed to the store, before the engine goes on (the
   * worker stops a draining run there, between two stages).
   */
  readonly onCheckpoint?: (logsRoot: string) => void;
}

/**
 * A `createRunStore` for `runPipeline`: `<root>/<run id>` opens the catalog's run, a deeper path its child store
 * (`RunStore.child`, sub-pipelines), and a `loop_restart` sibling (`<run id>-restart-1`) a run of its own.
 */
export function catalogRunStores(options: CatalogRunStoresOptions): (logsRoot: string) => RunStore {
  return (logsRoot) => {
    const parts = relative(options.root, resolve(logsRoot)).split(sep);
    const runId = parts[0];
    if (runId === undefined || runId === '' || runId === '..') {
      throw new Error(`Run directory ${logsRoot} is not under the worker's run root ${options.root}.`);
    }
    let store = options.catalog.open(runId);
    if (parts.length > 1) {
      const child = (store as { child?: (path: string) => RunStore }).child;
      if (child === undefined)
        throw new Error(`The run store of ${options.catalog.location} has no child stores.`);
      store = child.call(store, parts.slice(1).join('/'));
    }
    const onProcessGroups = options.onProcessGroups;
    const mapEvent = options.mapEvent;
    const onCheckpoint = options.onCheckpoint;
    if (onProcessGroups === undefined && mapEvent === undefined && onCheckpoint === undefined) return store;
    return new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'writeCheckpoint' && onCheckpoint !== undefined) {
          return (checkpoint: Checkpoint) => {
            const written = target.writeCheckpoint(checkpoint);
            onCheckpoint(logsRoot);
            return written;
          };
        }
        if (property === 'appendEvents' && mapEvent !== undefined) {
          return (events: readonly PipelineEvent[]) =>
            target.appendEvents(
              events.map(mapEvent).filter((event): event is PipelineEvent => event !== undefined),
            );
        }
        if (property !== 'acquireLock' || onProcessGroups === undefined) {
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (...args: Parameters<RunStore['acquireLock']>): Promise<RunLock> => {
          const lock = await target.acquireLock(...args);
          return {
            get holder() {
              return lock.holder;
            },
            ...(lock.endedProcessGroups === undefined ? {} : { endedProcessGroups: lock.endedProcessGroups }),
            async setProcessGroups(processGroupIds) {
              onProcessGroups(logsRoot, processGroupIds);
              await lock.setProcessGroups(processGroupIds);
            },
            async release() {
              onProcessGroups(logsRoot, []);
              await lock.release();
            },
          };
        };
      },
    });
  };
}
