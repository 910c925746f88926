/**
 * `attractor runs` over a PostgreSQL store and queue reads one page's depth of the run index (issue 34 §5): every page,
 * with and without a graph filter, equals the same page cut from the whole listing, with the queue's view (a run
 * waiting at a gate, a dead-lettered run, runs the store does not have yet) and the total.
 */
import type { RunCatalog, RunIndexFilter } from '@attractor/engine';
import { createTestCheckpoint, createTestManifest } from '@attractor/engine/test';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { connectRunQueue, openRunQueueReader, type RunQueue, type RunQueueReader } from '@attractor/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { listSharedRuns, listSharedRunsPage } from '../src/shared/list-shared-runs.js';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const available = postgresAvailableForTests('attractor runs pages on PostgreSQL');

describe.skipIf(!available)('attractor runs: pages of a PostgreSQL store and queue', () => {
  let server: PostgresTestServer;
  let catalog: ReturnType<typeof createPostgresRunCatalog>;
  let queue: RunQueue;
  let reader: RunQueueReader;
  beforeAll(async () => {
    server = await startPostgresServer();
    catalog = createPostgresRunCatalog({ connectionString: server.url });
    queue = await connectRunQueue({ url: server.url });
    // Ten runs in the store, one a day, graphs taking turns; the odd ones failed.
    for (let day = 1; day <= 10; day += 1) {
      const runId = `run-${String(day).padStart(2, '0')}`;
      const startedAt = `2026-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;
      const store = catalog.open(runId);
      await store.writeManifest(
        createTestManifest({
          run_id: runId,
          graph_name: day % 2 === 0 ? 'build' : 'review',
          started_at: startedAt,
        }),
      );
      await store.writeCheckpoint(
        createTestCheckpoint({
          run_id: runId,
          state: day % 2 === 0 ? 'success' : 'fail',
          current_node: 'exit',
          next_node: null,
          timestamp: startedAt,
        }),
      );
      await store.close();
      // Each ran on a worker (its queue row records it).
      await queue.pool.query(
        `INSERT INTO attractor_queue.runs (run_id, request, state, enqueued_at, started_at, ended_at, worker, error)
         VALUES ($1, $2, $3, $4, $4, $4, $5, $6)`,
        [
          runId,
          JSON.stringify({ source: `digraph ${day % 2 === 0 ? 'build' : 'review'} { a -> b }` }),
          day % 2 === 0 ? 'success' : 'fail',
          startedAt,
          `worker-${day % 3}`,
          day % 2 === 0 ? null : 'tests failed',
        ],
      );
    }
    // The queue's view changes three: one waits at a gate, one was dead-lettered, one was cancelled while queued again.
    await queue.pool.query(
      `UPDATE attractor_queue.runs SET state = 'waiting', question = '{"stage":"approve"}'::jsonb WHERE run_id = 'run-04'`,
    );
    await queue.pool.query(
      `UPDATE attractor_queue.runs SET dead_at = now(), error = 'the job failed 3 times' WHERE run_id = 'run-07'`,
    );
    await queue.pool.query(`UPDATE attractor_queue.runs SET state = 'cancelled' WHERE run_id = 'run-02'`);
    // Runs no worker has written to the store: two queued (newest of all), one cancelled before it started.
    await queue.enqueueRun({ runId: 'queued-build', source: 'digraph build { a -> b }' });
    await queue.enqueueRun({ runId: 'queued-review', source: 'digraph review { a -> b }' });
    await queue.enqueueRun({ runId: 'cancelled-early', source: 'digraph build { a -> b }' });
    await queue.cancelRun({ runId: 'cancelled-early' });
    // A row waiting at a gate that the store lacks (not listed: a waiting run has been written).
    await queue.enqueueRun({ runId: 'waiting-unwritten', source: 'digraph build { a -> b }' });
    await queue.pool.query(
      `UPDATE attractor_queue.runs SET state = 'waiting' WHERE run_id = 'waiting-unwritten'`,
    );
    reader = await openRunQueueReader({ url: server.url });
  }, 120_000);
  afterAll(async () => {
    await reader?.close();
    await queue?.close();
    await catalog?.close();
    await server?.stop();
  });

  it('every page equals the same page of the whole listing, reading only the page depth of the run index', async () => {
    const filters: RunIndexFilter[] = [];
    const counting: RunCatalog = {
      ...catalog,
      listRuns: (filter) => {
        filters.push(filter ?? {});
        return catalog.listRuns(filter);
      },
      countRuns: (filter) => catalog.countRuns(filter),
    };
    for (const graph of [undefined, 'build', 'review']) {
      const byGraph = graph === undefined ? {} : { graph };
      const whole = await listSharedRuns({ catalog, queue: reader, ...byGraph });
      expect(whole.length).toBeGreaterThan(3);
      for (const limit of [1, 2, 3, 50]) {
        for (let offset = 0; offset <= whole.length + limit; offset += limit) {
          filters.length = 0;
          const page = await listSharedRunsPage({
            catalog: counting,
            queue: reader,
            ...byGraph,
            offset,
            limit,
          });
          expect({ graph, limit, offset, ...page }).toEqual({
            graph,
            limit,
            offset,
            entries: whole.slice(offset, offset + limit),
            total: whole.length,
          });
          // The run index was read to the page's depth, and by id for the queue's runs: never whole.
          for (const filter of filters) expect(filter.limit ?? filter.runIds?.length).toBeDefined();
          expect(filters.some((filter) => filter.limit === offset + limit)).toBe(true);
        }
      }
    }
    // What the queue says shows: the runs it alone has first (the newest), a waiting run, a dead one, one cancelled
    // while queued again, and the store's own statuses.
    const whole = await listSharedRuns({ catalog, queue: reader });
    expect(whole.map((entry) => [entry.runId, entry.status])).toEqual([
      ['cancelled-early', 'cancelled'],
      ['queued-review', 'queued'],
      ['queued-build', 'queued'],
      ['run-10', 'success'],
      ['run-09', 'fail'],
      ['run-08', 'success'],
      ['run-07', 'dead'],
      ['run-06', 'success'],
      ['run-05', 'fail'],
      ['run-04', 'waiting'],
      ['run-03', 'fail'],
      ['run-02', 'cancelled'],
      ['run-01', 'fail'],
    ]);
  });

  it('prints a page with its workers, the total and the next page, as the whole listing would', async () => {
    const cwd = await temporaryDirectory();
    const env = { ATTRACTOR_STORE_URL: server.url, ATTRACTOR_QUEUE_URL: server.url };
    const listed = await attractor(['runs', '--limit', '4', '--page', '2', '--json'], { cwd, env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const entries = JSON.parse(listed.stdout) as { runId: string; status: string; worker?: string }[];
    expect(entries.map((entry) => [entry.runId, entry.status, entry.worker])).toEqual([
      ['run-09', 'fail', 'worker-0'],
      ['run-08', 'success', 'worker-2'],
      ['run-07', 'dead', 'worker-1'],
      ['run-06', 'success', 'worker-0'],
    ]);
    expect(listed.stderr).toContain(
      'runs 5-8 of 13, newest first; next page: attractor runs --limit 4 --json --page 3',
    );
    const text = await attractor(['runs', '--limit', '2', '--page', '7'], { cwd, env });
    expect(text.stdout.trim()).toMatch(
      /^run-01 {2}fail \(tests failed\) {2}review {2}2026-01-01T00:00:00.000Z$/,
    );
    expect(text.stderr).toContain('runs 13-13 of 13, newest first');
  });
});
