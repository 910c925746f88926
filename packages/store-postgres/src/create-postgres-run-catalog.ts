/**
 * The run catalog on PostgreSQL: what `--store postgres://…` opens. One connection pool for every run's store,
 * migrations applied on first use, and the run index that `listRuns` reads.
 */
import { tmpdir } from 'node:os';
import {
  InvalidStoreNameError,
  type RunCatalog,
  type RunIndexEntry,
  type RunIndexFilter,
  type RunIndexStatus,
} from '@attractor/engine';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { applyMigrations } from './migrations.js';
import type { OrderedWriter } from './ordered-writer.js';
import { liveLockCondition } from './postgres-run-lock.js';
import { createPostgresRunStore, eventsChannel, type PostgresStoreContext } from './postgres-run-store.js';
import { withTransaction } from './with-transaction.js';

/** Options of {@link createPostgresRunCatalog}. */
export interface PostgresRunCatalogOptions {
  /**
   * A libpq-style connection URL, e.g. `postgres://attractor:secret@db.internal:5432/attractor`
   * (`postgresql://` too; `?sslmode=…` and the other parameters of the `pg` client apply).
   */
  readonly connectionString: string;
  /**
   * The PostgreSQL schema holding the store's tables, created when missing. Letters, digits and `_`, starting with a
   * letter or `_`. Default: `attractor`.
   */
  readonly schema?: string;
  /** Most connections of the shared pool (run locks hold one more each, outside the pool). Default: 10. */
  readonly maxConnections?: number;
  /**
   * Wait, on every write, until the server has flushed it to disk (PostgreSQL's `synchronous_commit` for the store's
   * writes), like the file store's `fsync`. Default: false: a write returns once the server has committed it in
   * memory. A killed worker loses nothing either way; a crash of the PostgreSQL server itself may then lose the last
   * fraction of a second of writes (never part of a write, and never a write without the ones before it).
   */
  readonly synchronousCommit?: boolean;
  /**
   * Parent directory of the scratch directories `localStageDirectory` creates (removed when a store closes).
   * Default: the operating system's temporary directory.
   */
  readonly scratchDirectory?: string;
}

/** A {@link RunCatalog} on PostgreSQL; `location` never shows the password. */
export interface PostgresRunCatalog extends RunCatalog {
  /** The PostgreSQL schema that holds the store. */
  readonly schema: string;
  /**
   * Archives a top run (`archivedAt` a time, kept in `runs.archived_at`; an archived run keeps its first time) or
   * unarchives it (`archivedAt` undefined). Resolves false when the store has no such run.
   * @throws {InvalidStoreNameError} when `runId` is not a valid run id.
   */
  setRunArchived(options: {
    readonly runId: string;
    readonly archivedAt: Date | undefined;
  }): Promise<boolean>;
  /**
   * How many runs `listRuns` lists with `filter` (its `limit` ignored): one `count(*)` of the run index.
   * @throws {TypeError} when `filter.status` is not a run status.
   */
  countRuns(filter?: RunIndexFilter): Promise<number>;
  /**
   * Applies the store's migrations now (they are applied on first use anyway), e.g. to fail at start-up rather than
   * at the first run.
   * @throws {StoreSchemaVersionError} when the database was migrated by a newer version of this package.
   */
  migrate(): Promise<void>;
  /**
   * Calls `listener(runId)` whenever events of a run are appended (by any process on the database), from
   * PostgreSQL `NOTIFY` on the channel `<schema>_events`; child runs report their top-level run's id. The first
   * subscription opens one listening connection, kept until `close()` (reopened after it breaks, every second until it
   * succeeds).
   * Notifications may be lost while it is down: follow with a slow poll as well. Returns the unsubscribe function.
   */
  subscribeEvents(listener: (runId: string) => void): () => void;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Letters, digits, `.`, `_`, `-`, not starting with `.`. */
const RUN_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const STATUSES: readonly RunIndexStatus[] = [
  'running',
  'waiting',
  'success',
  'fail',
  'cancelled',
  'interrupted',
];

/**
 * Opens the run catalog in a PostgreSQL database: every run's manifest, checkpoint history, events, stage files,
 * artifacts and run lock, and the run index. Nothing is contacted until first use; the first use applies the
 * package's migrations (safe when several processes start at once). Runs of several machines share it; the run lock
 * keeps one runner per run across all of them.
 *
 * @example
 * const catalog = createPostgresRunCatalog({ connectionString: process.env.ATTRACTOR_STORE_URL! });
 * const store = catalog.open('2026-01-01T00-00-00Z-demo');
 * await runPipeline({ graph, registry, runStore: store });
 * console.log(await catalog.listRuns({ status: 'running' }));
 * await catalog.close();
 * @throws {TypeError} when `schema` is not a plain identifier or the connection string cannot be parsed.
 */
export function createPostgresRunCatalog(options: PostgresRunCatalogOptions): PostgresRunCatalog {
  const schemaName = options.schema ?? 'attractor';
  if (!SCHEMA_NAME.test(schemaName)) {
    throw new TypeError(
      `PostgreSQL schema "${schemaName}" is not a plain identifier: use letters, digits and "_" (e.g. "attractor").`,
    );
  }
  const location = describeLocation(options.connectionString);
  const schema = `"${schemaName}"`;
  const clientConfig: pg.ClientConfig = { connectionString: options.connectionString, keepAlive: true };
  const pool = new pg.Pool({ ...clientConfig, max: options.maxConnections ?? 10 });
  // An idle pooled connection that breaks (a server restart) is dropped from the pool; the next query opens another.
  pool.on('error', () => undefined);
  /** Connections held outside the pool (run locks, stores' writers), ended when the catalog closes. */
  const ownClients = new Set<pg.Client>();
  /** The writers of the stores opened and not closed, by run key: reads wait for their writes. */
  const writers = new Map<string, Set<OrderedWriter>>();
  const settled = async (runKey?: string, except?: OrderedWriter): Promise<void> => {
    const all =
      runKey === undefined
        ? [...writers.values()].flatMap((set) => [...set])
        : [...(writers.get(runKey) ?? [])];
    const waiting = all.filter((writer) => writer !== except);
    if (waiting.length > 0) await Promise.allSettled(waiting.map((writer) => writer.settled()));
  };
  let migrated: Promise<void> | undefined;
  let closed = false;

  /** Subscribers of appended events, and the connection that LISTENs for them while there are any. */
  const eventListeners = new Set<(runId: string) => void>();
  let listening: pg.Client | undefined;
  const listen = (): void => {
    if (closed || listening !== undefined || eventListeners.size === 0) return;
    const client = new pg.Client(clientConfig);
    listening = client;
    const retry = () => {
      if (listening !== client) return;
      listening = undefined;
      void client.end().catch(() => undefined);
      setTimeout(listen, 1000).unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (message) => {
      const runId = message.payload?.split('/')[0];
      if (runId !== undefined) for (const listener of [...eventListeners]) listener(runId);
    });
    client
      .connect()
      .then(() => client.query(`LISTEN "${eventsChannel(schemaName)}"`))
      .catch(retry);
  };

  const ready = (): Promise<void> => {
    migrated ??= applyMigrations(pool, schema, schemaName).catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };

  const context: PostgresStoreContext = {
    pool,
    clientConfig,
    schema,
    schemaName,
    location,
    ready,
    scratchRoot: options.scratchDirectory ?? tmpdir(),
    trackLock: (client, held) => {
      if (held) ownClients.add(client);
      else ownClients.delete(client);
    },
    trackWriter(runKey, writer, open) {
      let set = writers.get(runKey);
      if (open) {
        if (set === undefined) {
          set = new Set();
          writers.set(runKey, set);
        }
        set.add(writer);
      } else if (set !== undefined) {
        set.delete(writer);
        if (set.size === 0) writers.delete(runKey);
      }
    },
    settled,
    async connectWriter() {
      if (closed) throw new Error(`The run catalog at ${location} is closed: open a new one to write.`);
      await ready();
      const client = new pg.Client({ ...clientConfig, pipeline: true });
      // A lost connection fails the writes in flight (they reject); the writer opens a new one for later writes.
      client.on('error', () => undefined);
      ownClients.add(client);
      client.on('end', () => ownClients.delete(client));
      await client.connect();
      if (options.synchronousCommit !== true) await client.query('SET synchronous_commit TO off');
      return client;
    },
  };

  // The run index's rows as listRuns reads them: top runs with a manifest, not continued elsewhere, their totals, and
  // their status (`running` without a live lock holder reads as `interrupted`).
  const indexedRuns = `(
         SELECT r.run_key, r.graph_name, r.goal, r.current_node, r.started_at, ${isoText('r.started_at')} AS started,
                ${isoText('r.ended_at')} AS ended, r.tokens, r.cost_usd,
                r.parent_run_id, r.forked_from, r.forked_from_node, r.forked_from_visit, r.input_tokens,
                r.output_tokens, r.legs_ms, r.resumes,
                ${failureSum("'branches:'")} AS failed_branches,
                ${failureSum("'items:'")} AS failed_items,
                ${isoText('r.archived_at')} AS archived,
                CASE WHEN r.status = 'running' AND NOT EXISTS (
                       SELECT 1 FROM ${schema}.run_locks l WHERE l.run_key = r.run_key AND ${liveLockCondition('l')})
                     THEN 'interrupted' ELSE r.status END AS status
         FROM ${schema}.runs r
         WHERE r.parent_key IS NULL AND r.graph_name IS NOT NULL AND r.status <> 'restarted'
       ) runs`;
  /**
   * The run index's entries that meet `conditions` (on the columns of `IndexRow`, with `params`), newest first.
   */
  const queryIndex = async (
    conditions: readonly string[],
    params: readonly unknown[],
    limit: string,
  ): Promise<RunIndexEntry[]> => {
    const result = await pool.query<IndexRow>(
      `SELECT run_key, graph_name, goal, current_node, started, ended, tokens, cost_usd, parent_run_id, forked_from,
              forked_from_node, forked_from_visit, input_tokens, output_tokens, legs_ms, resumes, failed_branches,
              failed_items, archived, status
       FROM ${indexedRuns}
       ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
       ORDER BY started_at DESC NULLS LAST, run_key COLLATE "C" DESC
       ${limit}`,
      [...params],
    );
    return result.rows.map(toIndexEntry);
  };
  /** The conditions and parameters of a {@link RunIndexFilter} on {@link indexedRuns}' columns. */
  const whereOf = (filter: RunIndexFilter | undefined) => {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (filter?.status !== undefined) {
      if (!STATUSES.includes(filter.status)) {
        throw new TypeError(`Unknown run status "${filter.status}": use one of ${STATUSES.join(', ')}.`);
      }
      params.push(filter.status);
      conditions.push(`status = $${params.length}`);
    }
    if (filter?.graph !== undefined) {
      params.push(filter.graph);
      conditions.push(`graph_name = $${params.length}`);
    }
    if (filter?.runIds !== undefined) {
      params.push(filter.runIds);
      conditions.push(`run_key = ANY($${params.length}::text[])`);
    }
    return { conditions, params };
  };

  const catalog: PostgresRunCatalog = {
    location,
    schema: schemaName,
    migrate: ready,
    open(runId) {
      // The run ids of the file catalog (directory names), so that runs move between the two unchanged.
      if (!RUN_ID_PATTERN.test(runId)) throw new InvalidStoreNameError({ kind: 'run id', value: runId });
      return createPostgresRunStore(context, runId);
    },
    async listRuns(filter?: RunIndexFilter): Promise<RunIndexEntry[]> {
      await ready();
      await settled();
      const { conditions, params } = whereOf(filter);
      let limit = '';
      if (filter?.limit !== undefined) {
        params.push(Math.max(0, Math.floor(filter.limit)));
        limit = `LIMIT $${params.length}`;
      }
      return queryIndex(conditions, params, limit);
    },
    async countRuns(filter?: RunIndexFilter): Promise<number> {
      await ready();
      await settled();
      const { conditions, params } = whereOf(filter);
      const result = await pool.query<{ count: string }>(
        `SELECT count(*) AS count FROM ${indexedRuns}
         ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}`,
        params,
      );
      return Number(result.rows[0]?.count ?? 0);
    },
    async readRunEntry(runId: string): Promise<RunIndexEntry | undefined> {
      if (!RUN_ID_PATTERN.test(runId)) throw new InvalidStoreNameError({ kind: 'run id', value: runId });
      await ready();
      await settled(runId);
      const [entry] = await queryIndex(['run_key = $1'], [runId], '');
      return entry;
    },
    async setRunArchived(options: {
      readonly runId: string;
      readonly archivedAt: Date | undefined;
    }): Promise<boolean> {
      const { runId, archivedAt } = options;
      if (!RUN_ID_PATTERN.test(runId)) throw new InvalidStoreNameError({ kind: 'run id', value: runId });
      await ready();
      await settled(runId);
      // An archived run keeps its first time; the top run's row only (child runs follow their run).
      const result = await pool.query(
        `UPDATE ${schema}.runs SET archived_at = CASE WHEN $2::timestamptz IS NULL THEN NULL
                                                      ELSE coalesce(archived_at, $2::timestamptz) END
         WHERE run_key = $1 AND parent_key IS NULL`,
        [runId, archivedAt === undefined ? null : archivedAt.toISOString()],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async removeRun(runId: string): Promise<boolean> {
      if (!RUN_ID_PATTERN.test(runId)) throw new InvalidStoreNameError({ kind: 'run id', value: runId });
      await ready();
      await settled(runId);
      const found = await pool.query<{ manifest: string | null }>(
        `SELECT manifest FROM ${schema}.runs WHERE run_key = $1 AND parent_key IS NULL`,
        [runId],
      );
      const row = found.rows[0];
      if (row === undefined) return false;
      const store = createPostgresRunStore(context, runId);
      // Held while the rows go: a run a live runner holds is refused (RunLockedError), and none starts meanwhile.
      const lock = await store.acquireLock({ since: new Date().toISOString() });
      try {
        await withTransaction(pool, async (client) => {
          // The run and its child runs (keys `<run>/<stage>/<name>`, nested), found through the index's parent keys.
          const tree = await client.query<{ run_key: string }>(
            `WITH RECURSIVE tree(run_key) AS (
               SELECT $1::text
               UNION SELECT r.run_key FROM ${schema}.runs r JOIN tree t ON r.parent_key = t.run_key
             )
             SELECT run_key FROM tree
             UNION SELECT run_key FROM ${schema}.runs WHERE starts_with(run_key, $1 || '/')`,
            [runId],
          );
          const keys = tree.rows.map((key) => key.run_key);
          for (const table of ['checkpoints', 'events', 'files', 'runs']) {
            await client.query(`DELETE FROM ${schema}.${table} WHERE run_key = ANY($1::text[])`, [keys]);
          }
          await client.query(
            `DELETE FROM ${schema}.run_locks WHERE run_key = ANY($1::text[]) AND run_key <> $2`,
            [keys, runId],
          );
        });
      } finally {
        await lock.release();
        await store.close();
      }
      // The run a loop_restart continued here (`<location>#<run id>`) is not listed on its own: it goes too.
      const previous = readRestartedFrom(row.manifest);
      if (previous !== undefined && previous !== runId && RUN_ID_PATTERN.test(previous)) {
        await catalog.removeRun(previous);
      }
      return true;
    },
    subscribeEvents(listener) {
      eventListeners.add(listener);
      listen();
      return () => {
        eventListeners.delete(listener);
      };
    },
    async close() {
      closed = true;
      eventListeners.clear();
      if (listening !== undefined) {
        const client = listening;
        listening = undefined;
        await client.end().catch(() => undefined);
      }
      await settled();
      for (const client of [...ownClients]) await client.end().catch(() => undefined);
      ownClients.clear();
      await pool.end();
    },
  };
  return catalog;
}

/** The run id a manifest's `restarted_from` names (`<location>#<run id>`, or a bare id), if any. */
function readRestartedFrom(manifest: string | null): string | undefined {
  if (manifest === null) return undefined;
  try {
    const from = (JSON.parse(manifest) as { restarted_from?: unknown }).restarted_from;
    if (typeof from !== 'string') return undefined;
    const id = from.slice(from.lastIndexOf('#') + 1);
    return id.includes('/') ? undefined : id;
  } catch {
    return undefined;
  }
}

/**
 * The sum of a run row's `failures` counts whose key starts with `prefix` (an SQL string literal). Most runs have
 * none: an empty object is answered without expanding it (expanding it for each of 10,000 rows took most of the
 * runs list's time in the database).
 */
function failureSum(prefix: string): string {
  return `CASE WHEN r.failures = '{}'::jsonb THEN 0 ELSE (SELECT coalesce(sum(f.value::bigint), 0)
          FROM jsonb_each_text(r.failures) f WHERE starts_with(f.key, ${prefix})) END`;
}

/**
 * A timestamp column as ISO-8601 text in UTC with milliseconds (`toISOString`'s form), formatted by the server: a
 * listing of 10,000 runs then parses no dates.
 */
function isoText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A `runs` row as `listRuns` selects it. */
interface IndexRow {
  readonly run_key: string;
  readonly graph_name: string;
  readonly goal: string | null;
  readonly status: RunIndexStatus;
  readonly current_node: string | null;
  readonly started: string | null;
  readonly ended: string | null;
  readonly tokens: string;
  readonly cost_usd: number;
  readonly parent_run_id: string | null;
  readonly forked_from: string | null;
  readonly forked_from_node: string | null;
  readonly forked_from_visit: number | null;
  /** bigint columns and sums come as text. */
  readonly input_tokens: string;
  readonly output_tokens: string;
  readonly legs_ms: string;
  readonly resumes: number;
  readonly failed_branches: string;
  readonly failed_items: string;
  /** When the run was archived (ISO-8601), or null. */
  readonly archived: string | null;
}

function toIndexEntry(row: IndexRow): RunIndexEntry {
  const tokens = Number(row.tokens);
  return {
    runId: row.run_key,
    graphName: row.graph_name,
    goal: row.goal ?? '',
    status: row.status,
    startedAt: row.started ?? '',
    ...(row.current_node === null ? {} : { currentNode: row.current_node }),
    ...(row.ended === null ? {} : { endedAt: row.ended }),
    ...(tokens > 0 ? { tokens } : {}),
    ...(row.cost_usd > 0 ? { costUsd: row.cost_usd } : {}),
    ...(row.parent_run_id === null ? {} : { parentRunId: row.parent_run_id }),
    ...(row.forked_from === null ? {} : { forkedFrom: row.forked_from }),
    ...(row.forked_from_node === null || row.forked_from_visit === null
      ? {}
      : { forkedAt: { node: row.forked_from_node, visit: row.forked_from_visit } }),
    ...positive('inputTokens', row.input_tokens),
    ...positive('outputTokens', row.output_tokens),
    ...(row.ended === null ? {} : { durationMs: Number(row.legs_ms) }),
    ...positive('resumes', row.resumes),
    ...positive('failedBranches', row.failed_branches),
    ...positive('failedItems', row.failed_items),
    ...(row.archived === null ? {} : { archivedAt: row.archived }),
  };
}

/** `{ [key]: value }` for a count above zero (from a number or a bigint's text), else nothing. */
function positive<K extends string>(key: K, value: string | number): { [P in K]?: number } {
  const count = Number(value);
  return count > 0 ? ({ [key]: count } as { [P in K]?: number }) : {};
}

/**
 * Where a connection string points, without its password: `postgres://user@host:port/database`.
 * @throws {TypeError} when the connection string cannot be parsed (the message does not repeat it).
 */
export function describeLocation(connectionString: string): string {
  let parsed: ReturnType<typeof parseConnectionString>;
  try {
    parsed = parseConnectionString(connectionString);
  } catch {
    throw new TypeError(
      'The PostgreSQL connection string cannot be parsed: use postgres://user:password@host:5432/database.',
    );
  }
  const user = parsed.user ? `${encodeURIComponent(parsed.user)}@` : '';
  const host = parsed.host ?? 'localhost';
  const hostPart = host.startsWith('/') ? '' : host.includes(':') ? `[${host}]` : host;
  const port = parsed.port ? `:${parsed.port}` : '';
  const socket = host.startsWith('/') ? `?host=${host}` : '';
  return `postgres://${user}${hostPart}${port}/${parsed.database ?? ''}${socket}`;
}
