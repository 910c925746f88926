/**
 * Reading the run queue without starting pg-boss: what listings need (`attractor runs`, a dashboard). One `pg` pool
 * on the queue's table; no jobs are sent, no queue is created or changed. `connectRunQueue` reads through the same
 * queries.
 */
import pg from 'pg';
import { describeQueueLocation, queueUnavailable } from './queue-location.js';
import { GRAPH_NAME_OF_REQUEST, QUEUE_SCHEMA, type QueuedRunRow, toQueuedRun } from './queue-tables.js';
import type { QueuedRun, QueuedRunState, QueuedRunSummary } from './queued-run.js';

/** Filter of {@link RunQueueReader.listRunStates}. */
export interface RunStatesFilter {
  /** Only runs that are (true) or are not (false) dead-lettered. Default: all. */
  readonly dead?: boolean;
  /** Only runs in one of these states. Default: all. */
  readonly states?: readonly QueuedRunState[];
  /** Only these runs (ids the queue does not know are left out). Default: all. */
  readonly runIds?: readonly string[];
}

/** A read-only view of the run queue. */
export interface RunQueueReader {
  /** The queue URL without its password, for messages. */
  readonly location: string;
  /** What the queue knows about a run, or undefined. */
  readRun(runId: string): Promise<QueuedRun | undefined>;
  /**
   * Every run the queue knows, newest first, without its request (a listing of 10,000 runs reads about 1 MB): where it
   * stands, the gate it waits at, why it failed, whether it was dead-lettered.
   */
  listRunStates(filter?: RunStatesFilter): Promise<QueuedRunSummary[]>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/**
 * Opens a read-only view of the run queue at `url` (`--queue` / `ATTRACTOR_QUEUE_URL`), checking that the server
 * answers. A queue no worker or client has created yet reads as empty.
 * @throws {QueueUnavailableError} when the URL is not a PostgreSQL URL or the server cannot be reached or refuses.
 */
export async function openRunQueueReader(options: {
  readonly url: string;
  /** Connections of the pool. Default: 2. */
  readonly maxConnections?: number;
}): Promise<RunQueueReader> {
  const location = describeQueueLocation(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 2,
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', () => undefined);
  let exists: boolean;
  let graphNames: GraphNameSource;
  try {
    // A table written by an older version may lack the graph name column (the reader changes nothing): the name is
    // then read from each request.
    const { rows } = await pool.query<{ table: string | null; named: boolean }>(
      `SELECT to_regclass($1) AS table, EXISTS (
         SELECT 1 FROM information_schema.columns
         WHERE table_schema = $2 AND table_name = 'runs' AND column_name = 'graph_name') AS named`,
      [`${QUEUE_SCHEMA}.runs`, QUEUE_SCHEMA],
    );
    exists = rows[0]?.table !== null && rows[0]?.table !== undefined;
    graphNames = rows[0]?.named === true ? 'column' : 'request';
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw queueUnavailable(error, location);
  }
  return {
    location,
    readRun: (runId) => (exists ? selectRun(pool, runId) : Promise.resolve(undefined)),
    listRunStates: (filter) => (exists ? selectRunStates(pool, filter, graphNames) : Promise.resolve([])),
    async close() {
      await pool.end().catch(() => undefined);
    },
  };
}

/** The queue's row of `runId`, or undefined. Internal: `connectRunQueue` reads through it too. */
export async function selectRun(pool: pg.Pool, runId: string): Promise<QueuedRun | undefined> {
  const { rows } = await pool.query<QueuedRunRow>(`SELECT * FROM ${QUEUE_SCHEMA}.runs WHERE run_id = $1`, [
    runId,
  ]);
  return rows[0] === undefined ? undefined : toQueuedRun(rows[0]);
}

/**
 * Every run's state, newest first: times as ISO-8601 text formatted by the server and the graph name kept in its own
 * column, so that 10,000 rows cost the client and the server little. Internal: `connectRunQueue` lists through it too.
 */
export async function selectRunStates(
  pool: pg.Pool,
  filter: RunStatesFilter = {},
  graphNames: GraphNameSource = 'column',
): Promise<QueuedRunSummary[]> {
  const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const { rows } = await pool.query<SummaryRow>(
    `SELECT run_id, state, ${iso('enqueued_at')} AS enqueued_at, ${iso('started_at')} AS started_at,
            ${iso('ended_at')} AS ended_at, worker, question->>'stage' AS waiting_at, error, ${iso('dead_at')} AS dead_at,
            ${graphNames === 'column' ? 'graph_name' : `${GRAPH_NAME_OF_REQUEST} AS graph_name`}
     FROM ${QUEUE_SCHEMA}.runs
     WHERE ($1::boolean IS NULL OR (dead_at IS NOT NULL) = $1) AND ($2::text[] IS NULL OR state = ANY($2))
       AND ($3::text[] IS NULL OR run_id = ANY($3))
     ORDER BY enqueued_at DESC, run_id DESC`,
    [filter.dead ?? null, filter.states ?? null, filter.runIds ?? null],
  );
  return rows.map(toSummary);
}

/**
 * Where a listing reads each run's graph name: the `graph_name` column (written with the row since the queue's
 * tables have it), or the request's DOT source (a table no worker or client of this version has migrated yet).
 */
type GraphNameSource = 'column' | 'request';

/** The columns {@link selectRunStates} selects. */
interface SummaryRow {
  run_id: string;
  state: QueuedRunState;
  enqueued_at: string;
  started_at: string | null;
  ended_at: string | null;
  worker: string | null;
  waiting_at: string | null;
  error: string | null;
  dead_at: string | null;
  graph_name: string | null;
}

function toSummary(row: SummaryRow): QueuedRunSummary {
  return {
    runId: row.run_id,
    state: row.state,
    graphName: row.graph_name ?? '',
    enqueuedAt: row.enqueued_at,
    ...(row.started_at === null ? {} : { startedAt: row.started_at }),
    ...(row.ended_at === null ? {} : { endedAt: row.ended_at }),
    ...(row.worker === null ? {} : { worker: row.worker }),
    ...(row.state === 'waiting' && row.waiting_at !== null ? { waitingAt: row.waiting_at } : {}),
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.dead_at === null ? {} : { deadAt: row.dead_at }),
  };
}
