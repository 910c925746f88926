import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailableForTests, startPostgresServer } from '../test/worker-fixtures.js';
import { connectRunQueue, openRunQueueReader } from './index.js';

const available = postgresAvailableForTests('@attractor/worker tests of the run queue reader');

const source = (name: string) =>
  `digraph ${name} { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }`;

describe.skipIf(!available)("the run queue's listing of graph names (issue 34)", () => {
  let server: Awaited<ReturnType<typeof startPostgresServer>>;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 1 });
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it('reads the name from the request on a table written before the graph_name column, and from the column once a client migrated it; filters by state and run id', async () => {
    // The queue's table as a version before the column left it, with one run in it.
    await pool.query(`CREATE SCHEMA attractor_queue`);
    await pool.query(
      `CREATE TABLE attractor_queue.runs (run_id text PRIMARY KEY, request jsonb NOT NULL, state text NOT NULL,
         enqueued_at timestamptz NOT NULL DEFAULT now(), started_at timestamptz, ended_at timestamptz, worker text,
         question jsonb, asked_by text, asked_at timestamptz, deadline_at timestamptz,
         answers jsonb NOT NULL DEFAULT '{}'::jsonb, error text, updated_at timestamptz NOT NULL DEFAULT now(),
         signature text, crashes integer NOT NULL DEFAULT 0, dead_at timestamptz)`,
    );
    await pool.query(
      `INSERT INTO attractor_queue.runs (run_id, request, state, enqueued_at) VALUES ($1, $2, 'queued', $3)`,
      ['old-run', JSON.stringify({ source: source('"before_column"') }), '2026-01-01T00:00:00Z'],
    );

    // A reader changes nothing: it reads the name from the request.
    const before = await openRunQueueReader({ url: server.url });
    try {
      expect((await before.listRunStates()).map((run) => [run.runId, run.graphName])).toEqual([
        ['old-run', 'before_column'],
      ]);
    } finally {
      await before.close();
    }
    const columns = async () =>
      (
        await pool.query<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns
           WHERE table_schema = 'attractor_queue' AND table_name = 'runs' AND column_name = 'graph_name'`,
        )
      ).rows.length;
    expect(await columns()).toBe(0);

    // A client of this version migrates the table: the row already there gets its name, a new one has it as written.
    const queue = await connectRunQueue({ url: server.url });
    try {
      expect(await columns()).toBe(1);
      const runId = await queue.enqueueRun({ source: source('after_column'), runId: 'new-run' });
      expect(runId).toBe('new-run');
      const { rows } = await pool.query<{ run_id: string; graph_name: string | null }>(
        `SELECT run_id, graph_name FROM attractor_queue.runs ORDER BY run_id`,
      );
      expect(rows).toEqual([
        { run_id: 'new-run', graph_name: 'after_column' },
        { run_id: 'old-run', graph_name: 'before_column' },
      ]);
      const after = await openRunQueueReader({ url: server.url });
      try {
        expect((await after.listRunStates()).map((run) => [run.runId, run.graphName])).toEqual([
          ['new-run', 'after_column'],
          ['old-run', 'before_column'],
        ]);
      } finally {
        await after.close();
      }
      // Filters by state and by run id (what `attractor runs` reads for a page).
      await queue.cancelRun({ runId: 'old-run', reason: 'test' });
      expect((await queue.listRunStates({ states: ['cancelled'] })).map((run) => run.runId)).toEqual([
        'old-run',
      ]);
      expect((await queue.listRunStates({ states: ['queued', 'waiting'] })).map((run) => run.runId)).toEqual([
        'new-run',
      ]);
      expect(
        (await queue.listRunStates({ runIds: ['old-run', 'no-such-run'] })).map((run) => run.runId),
      ).toEqual(['old-run']);
      // A source without a `digraph <name>` lists with an empty name, as before.
      await queue.enqueueRun({ source: 'graph { a -- b }', runId: 'unnamed-run' });
      expect((await queue.listRunStates()).find((run) => run.runId === 'unnamed-run')?.graphName).toBe('');
    } finally {
      await queue.close();
    }
  }, 120_000);
});
