import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createFileRunCatalog, type RunCatalog, type RunStore } from '@attractor/engine';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postgresAvailableForTests,
  prepareSimulated,
  startPostgresServer,
  tempDir,
} from '../test/worker-fixtures.js';
import { connectRunQueue, type RunQueue, startWorker, type WorkerRunCatalog } from './index.js';

const available = postgresAvailableForTests('@attractor/worker tests of what suspended runs hold');

const GATE = `digraph gate {
  start [shape=Mdiamond]
  work [shape=parallelogram, tool_command="echo work >> trail.txt"]
  ask [shape=hexagon, label="Go on?"]
  done [shape=Msquare]
  start -> work -> ask
  ask -> done [label="[Y] Yes"]
}`;
const RUNS = 6;

/**
 * The worker's view of `catalog`: every `open` hands out a store of its own whose `close` is counted, and remembers
 * the catalog's store behind it.
 */
function countingCatalog(catalog: RunCatalog) {
  const handedOut: { readonly runId: string; readonly store: RunStore; closed: boolean }[] = [];
  const worker: WorkerRunCatalog = {
    location: catalog.location,
    open(runId) {
      const store = catalog.open(runId);
      const record = { runId, store, closed: false };
      handedOut.push(record);
      return new Proxy(store, {
        get(target, property) {
          if (property === 'close') {
            return () => {
              record.closed = true;
              return target.close();
            };
          }
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
  return { worker, handedOut };
}

/** Descriptors this process holds on files under `directory` (Linux /proc/self/fd). */
function descriptorsUnder(directory: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(`${directory}/`) ? [target] : [];
    } catch {
      return [];
    }
  });
}

describe.skipIf(!available || process.platform !== 'linux')(
  'a worker holding suspended runs keeps nothing of them (issue 18 "A waiting gate holds no worker")',
  () => {
    let server: Awaited<ReturnType<typeof startPostgresServer>>;
    let dir: Awaited<ReturnType<typeof tempDir>>;
    let queue: RunQueue;
    let probe: pg.Client;
    beforeAll(async () => {
      server = await startPostgresServer();
      dir = await tempDir('held');
      queue = await connectRunQueue({ url: server.url });
      probe = new pg.Client({ connectionString: server.url });
      await probe.connect();
    });
    afterAll(async () => {
      await probe?.end();
      await queue?.close();
      await server?.stop();
      await dir?.cleanup();
    });

    /** Runs RUNS gate runs on a worker over `catalog` until all wait; returns their ids and what was handed out. */
    const suspendRuns = async (catalog: RunCatalog, name: string) => {
      const counting = countingCatalog(catalog);
      const worker = await startWorker({
        catalog: counting.worker,
        queueUrl: server.url,
        workdirRoot: join(dir.path, `work-${name}`),
        prepare: prepareSimulated,
        pollingIntervalSeconds: 0.5,
        workerId: name,
      });
      try {
        const runIds: string[] = [];
        for (let index = 0; index < RUNS; index += 1) {
          runIds.push(await queue.enqueueRun({ source: GATE, graphName: `gate-${name}` }));
        }
        for (const runId of runIds) {
          await expect
            .poll(async () => (await queue.readRun(runId))?.state, { timeout: 90_000 })
            .toBe('waiting');
        }
        await expect.poll(() => worker.running(), { timeout: 60_000 }).toEqual([]);
        return { runIds, handedOut: counting.handedOut };
      } finally {
        await worker.stop();
      }
    };

    it('file store: closes every store it opened, the catalog forgets them, no descriptor or run lock stays', async () => {
      const runsDirectory = join(dir.path, 'runs');
      const catalog = createFileRunCatalog(runsDirectory);
      // The worker is stopped before the checks below only to end its queue connections; what it held of each run
      // was released when the run suspended (the engine's store and the worker's read of the checkpoint).
      const { runIds, handedOut } = await suspendRuns(catalog, 'file');
      expect(new Set(handedOut.map((record) => record.runId))).toEqual(new Set(runIds));
      expect(handedOut.filter((record) => !record.closed).map((record) => record.runId)).toEqual([]);
      expect(descriptorsUnder(runsDirectory)).toEqual([]);
      for (const runId of runIds) {
        const store = catalog.open(runId);
        // A store of its own: the catalog kept none of the ones the worker used.
        expect(handedOut.some((record) => record.store === store)).toBe(false);
        expect(await store.readLock()).toBeUndefined();
        expect((await store.readCheckpoint())?.next_node).toBe('ask');
      }
      await catalog.close();
    }, 240_000);

    it('PostgreSQL store: closes every store it opened; no advisory lock or store connection stays', async () => {
      // The worker's store connections carry their own application_name, so they can be told apart in pg_stat_activity.
      const url = new URL(server.url);
      url.searchParams.set('application_name', 'held-resources-store');
      const catalog = createPostgresRunCatalog({ connectionString: url.toString() });
      try {
        const { runIds, handedOut } = await suspendRuns(catalog, 'postgres');
        expect(new Set(handedOut.map((record) => record.runId))).toEqual(new Set(runIds));
        expect(handedOut.filter((record) => !record.closed).map((record) => record.runId)).toEqual([]);
        const { rows: locks } = await probe.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted`,
        );
        expect(locks[0]?.n).toBe(0);
        // Only the catalog's pool remains (idle connections, ended after 10 s idle): no lock or writer connection.
        const storeConnections = async () =>
          (
            await probe.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'held-resources-store'`,
            )
          ).rows[0]?.n;
        await expect.poll(storeConnections, { timeout: 30_000, interval: 500 }).toBe(0);
        for (const runId of runIds) expect(await catalog.open(runId).readLock()).toBeUndefined();
      } finally {
        await catalog.close();
      }
    }, 240_000);
  },
);
