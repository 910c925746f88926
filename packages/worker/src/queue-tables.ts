/**
 * The queue's own table (beside pg-boss's schema): one row per queued run. pg-boss holds the jobs; this row holds
 * the request, the state and the human gate a suspended run waits at. Created on first use.
 */
import type pg from 'pg';
import type { QueuedRun } from './queued-run.js';

/** The PostgreSQL schema of the queue's table. */
export const QUEUE_SCHEMA = 'attractor_queue';

/** The pg-boss queue that run jobs go to. */
export const RUN_QUEUE_NAME = 'attractor-runs';

/**
 * The dead letter queue of {@link RUN_QUEUE_NAME}: pg-boss moves a run job there once it failed more times than the
 * queue's `retryLimit` allows (its worker died each time, or the store kept failing); a worker then marks the run
 * failed.
 */
export const DEAD_RUN_QUEUE_NAME = 'attractor-runs-dead';

/** The NOTIFY channel on which `cancelRun` tells workers to stop a run (payload: the run id). */
export const CANCEL_CHANNEL = 'attractor_queue_cancel';

/** SQL: the graph's name (`digraph <name>`) read from a row's request, as the `graph_name` column holds it. */
export const GRAPH_NAME_OF_REQUEST = `substring(request->>'source' from 'digraph\\s+"?([A-Za-z0-9_.-]+)')`;

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ${QUEUE_SCHEMA}.runs (
     run_id text PRIMARY KEY,
     request jsonb NOT NULL,
     state text NOT NULL,
     enqueued_at timestamptz NOT NULL DEFAULT now(),
     started_at timestamptz,
     ended_at timestamptz,
     worker text,
     question jsonb,
     asked_by text,
     asked_at timestamptz,
     deadline_at timestamptz,
     answers jsonb NOT NULL DEFAULT '{}'::jsonb,
     error text,
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE INDEX IF NOT EXISTS runs_state_idx ON ${QUEUE_SCHEMA}.runs (state)`,
  // The HMAC of the request (signRunRequest): a worker with a queue key refuses a row without a valid one.
  `ALTER TABLE ${QUEUE_SCHEMA}.runs ADD COLUMN IF NOT EXISTS signature text`,
  // How many times the run's executor process died under it (a poison run): at the worker's limit the run ends.
  `ALTER TABLE ${QUEUE_SCHEMA}.runs ADD COLUMN IF NOT EXISTS crashes integer NOT NULL DEFAULT 0`,
  // When the run's job went to the dead letter queue (the run failed outside its pipeline); cleared when it is queued
  // again.
  `ALTER TABLE ${QUEUE_SCHEMA}.runs ADD COLUMN IF NOT EXISTS dead_at timestamptz`,
  // The graph's name, read from the request's DOT source once, when the row is written (rows already there are filled
  // now): a listing of 10,000 runs matched the pattern against every source each time.
  `ALTER TABLE ${QUEUE_SCHEMA}.runs ADD COLUMN IF NOT EXISTS graph_name text
     GENERATED ALWAYS AS (${GRAPH_NAME_OF_REQUEST}) STORED`,
];

/** Creates the schema and table when missing; safe to call from many processes at once (advisory lock). */
export async function ensureQueueTables(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('${QUEUE_SCHEMA}.migrate'))`);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${QUEUE_SCHEMA}`);
    for (const statement of MIGRATIONS) await client.query(statement);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The columns of a row, as `pg` returns them. */
export interface QueuedRunRow {
  run_id: string;
  request: QueuedRun['request'];
  state: QueuedRun['state'];
  enqueued_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  worker: string | null;
  question: QueuedRun['question'] | null;
  asked_by: string | null;
  asked_at: Date | null;
  deadline_at: Date | null;
  answers: QueuedRun['answers'];
  error: string | null;
  crashes?: number;
  dead_at: Date | null;
}

/** A row as a {@link QueuedRun}. */
export function toQueuedRun(row: QueuedRunRow): QueuedRun {
  return {
    runId: row.run_id,
    request: row.request,
    state: row.state,
    enqueuedAt: row.enqueued_at.toISOString(),
    ...(row.started_at === null ? {} : { startedAt: row.started_at.toISOString() }),
    ...(row.ended_at === null ? {} : { endedAt: row.ended_at.toISOString() }),
    ...(row.worker === null ? {} : { worker: row.worker }),
    ...(row.question === null ? {} : { question: row.question }),
    ...(row.asked_by === null ? {} : { askedBy: row.asked_by }),
    ...(row.asked_at === null ? {} : { askedAt: row.asked_at.toISOString() }),
    ...(row.deadline_at === null ? {} : { deadlineAt: row.deadline_at.toISOString() }),
    answers: row.answers,
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.crashes === undefined || row.crashes === 0 ? {} : { crashes: row.crashes }),
    ...(row.dead_at === null || row.dead_at === undefined ? {} : { deadAt: row.dead_at.toISOString() }),
  };
}
