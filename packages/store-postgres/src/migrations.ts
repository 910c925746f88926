/**
 * The versioned schema of the PostgreSQL run store and the code that applies it. Every migration runs once, in
 * order, inside one transaction that first takes a transaction-scoped advisory lock of the schema: processes that
 * open the same database at the same moment apply the missing migrations one after the other, never twice. The
 * applied versions are rows of `{schema}.schema_migrations`.
 */
import type pg from 'pg';
import { StoreSchemaVersionError } from './errors/store-schema-version-error.js';
import { withTransaction } from './with-transaction.js';

/** One schema change: applied once, in version order. `sql` receives the quoted schema name. */
interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => string;
}

/**
 * The migrations, oldest first. Never edit one that was released: add the next version instead.
 *
 * - `runs`: the run index (one row per run or child run) and the manifest.
 * - `checkpoints`, `events`: append-only, ordered by their identity column.
 * - `files` + `file_chunks`: stage files and artifacts as blobs cut into chunks (streamed reads and writes).
 * - `run_locks`: who holds a run's lock; the lock itself is a session advisory lock of the holder's connection.
 * - version 2: the run totals of the `runs` row (tokens apart, legs, resumes, failures, a fork's stage).
 * - version 3: `runs.archived_at`, when a run was archived (`setRunArchived`); null when it is not.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'run store',
    sql: (s) => `
      CREATE TABLE ${s}.runs (
        run_key text PRIMARY KEY,
        parent_key text,
        run_id text,
        graph_name text,
        goal text,
        status text NOT NULL DEFAULT 'running',
        current_node text,
        started_at timestamptz,
        ended_at timestamptz,
        tokens bigint NOT NULL DEFAULT 0,
        cost_usd double precision NOT NULL DEFAULT 0,
        parent_run_id text,
        forked_from text,
        manifest text,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX runs_started_at ON ${s}.runs (started_at DESC) WHERE parent_key IS NULL;
      CREATE TABLE ${s}.checkpoints (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        run_key text NOT NULL,
        body text NOT NULL,
        written_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX checkpoints_run ON ${s}.checkpoints (run_key, id);
      CREATE TABLE ${s}.events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        run_key text NOT NULL,
        seq bigint NOT NULL,
        body text NOT NULL
      );
      CREATE INDEX events_run ON ${s}.events (run_key, id);
      CREATE INDEX events_run_seq ON ${s}.events (run_key, seq);
      CREATE TABLE ${s}.files (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        run_key text NOT NULL,
        area text NOT NULL CHECK (area IN ('stage', 'artifact')),
        path text NOT NULL,
        stage_path text NOT NULL,
        size_bytes bigint NOT NULL,
        modified_at timestamptz NOT NULL,
        UNIQUE (run_key, area, path)
      );
      CREATE TABLE ${s}.file_chunks (
        file_id bigint NOT NULL REFERENCES ${s}.files (id) ON DELETE CASCADE,
        id bigint GENERATED ALWAYS AS IDENTITY,
        data bytea NOT NULL,
        PRIMARY KEY (file_id, id)
      );
      CREATE TABLE ${s}.run_locks (
        run_key text PRIMARY KEY,
        lock_key bigint NOT NULL,
        pid integer NOT NULL,
        host text NOT NULL,
        since text NOT NULL,
        process_groups integer[] NOT NULL DEFAULT '{}',
        backend_pid integer NOT NULL,
        taken_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
    `,
  },
  {
    version: 2,
    name: 'run totals',
    // What a runs list shows of each run beside its status (issue 31): tokens apart, the time its legs ran, its
    // resumes, the failed branches and items of its parallel and foreach nodes, and the stage a fork started after.
    // The runs written before get them from their manifests and event logs, by the rules of `patchFromEvents`.
    sql: (s) => `
      ALTER TABLE ${s}.runs
        ADD COLUMN input_tokens bigint NOT NULL DEFAULT 0,
        ADD COLUMN output_tokens bigint NOT NULL DEFAULT 0,
        ADD COLUMN legs_ms bigint NOT NULL DEFAULT 0,
        ADD COLUMN resumes integer NOT NULL DEFAULT 0,
        ADD COLUMN suspended boolean NOT NULL DEFAULT false,
        ADD COLUMN failures jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN forked_from_node text,
        ADD COLUMN forked_from_visit integer;
      UPDATE ${s}.runs
        SET forked_from_node = manifest::jsonb #>> '{forked_from,node}',
            forked_from_visit = (manifest::jsonb #>> '{forked_from,visit}')::integer
        WHERE forked_from IS NOT NULL AND manifest IS NOT NULL;
      UPDATE ${s}.runs r
        SET input_tokens = t.input_tokens, output_tokens = t.output_tokens, legs_ms = t.legs_ms, resumes = t.resumes,
            suspended = coalesce(t.last_leg = 'pipeline.suspended', false)
        FROM (
          SELECT e.run_key,
                 coalesce(sum((e.b ->> 'inputTokens')::bigint) FILTER (WHERE e.b ->> 'type' = 'agent.usage'), 0)
                   AS input_tokens,
                 coalesce(sum((e.b ->> 'outputTokens')::bigint) FILTER (WHERE e.b ->> 'type' = 'agent.usage'), 0)
                   AS output_tokens,
                 coalesce(round(sum((e.b ->> 'durationMs')::numeric) FILTER (WHERE e.leg_end)), 0) AS legs_ms,
                 count(*) FILTER (
                   WHERE e.own_start AND NOT e.b ? 'forkedFrom' AND e.b ->> 'resumed' = 'true'
                     AND e.previous_leg IS DISTINCT FROM 'pipeline.suspended') AS resumes,
                 (array_agg(e.b ->> 'type' ORDER BY e.id DESC) FILTER (WHERE e.own_start OR e.leg_end))[1] AS last_leg
          FROM (
            SELECT l.*,
                   -- The leg event before this one (a start or an end of the run's own legs).
                   lag(CASE WHEN l.own_start OR l.leg_end THEN l.b ->> 'type' END) OVER (
                     PARTITION BY l.run_key, (l.own_start OR l.leg_end) ORDER BY l.id) AS previous_leg
            FROM (
              SELECT v.*,
                     v.b ->> 'type' = 'pipeline.started' AND NOT v.b ? 'branchPath' AND v.b ->> 'runId' = v.run_key
                       AS own_start,
                     v.b ->> 'type' IN ('pipeline.completed', 'pipeline.failed', 'pipeline.cancelled',
                                        'pipeline.suspended')
                       AND coalesce(jsonb_array_length(v.b -> 'branchPath'), 0) = 0 AS leg_end
              FROM (
                SELECT run_key, id, body::jsonb AS b FROM ${s}.events
                WHERE body LIKE '%"type":"pipeline.%' OR body LIKE '%"type":"agent.usage"%'
              ) v
            ) l
          ) e
          GROUP BY e.run_key
        ) t
        WHERE r.run_key = t.run_key;
      UPDATE ${s}.runs r
        SET failures = t.failures
        FROM (
          SELECT run_key, jsonb_object_agg(key, failure_count) AS failures
          FROM (
            SELECT DISTINCT ON (run_key, key) run_key, key, failure_count
            FROM (
              SELECT run_key, id, (b ->> 'failureCount')::integer AS failure_count,
                     CASE b ->> 'type' WHEN 'parallel.completed' THEN 'branches:' ELSE 'items:' END
                       || (b ->> 'runId') || ':'
                       || coalesce((SELECT string_agg(p.step, '/' ORDER BY p.n)
                                    FROM jsonb_array_elements_text(b -> 'branchPath') WITH ORDINALITY AS p(step, n)), '')
                       || ':' || (b ->> 'nodeId') AS key
              FROM (
                SELECT run_key, id, body::jsonb AS b FROM ${s}.events
                WHERE body LIKE '%"type":"parallel.completed"%' OR body LIKE '%"type":"foreach.completed"%'
              ) e
              WHERE b ->> 'type' IN ('parallel.completed', 'foreach.completed')
            ) keyed
            ORDER BY run_key, key, id DESC
          ) latest
          GROUP BY run_key
        ) t
        WHERE r.run_key = t.run_key;
    `,
  },
  {
    version: 3,
    name: 'archived runs',
    // A runs list leaves archived runs out by default (issue 31): the time a run was archived, null when it is not.
    sql: (s) => `ALTER TABLE ${s}.runs ADD COLUMN archived_at timestamptz;`,
  },
];

/** The newest schema version this package knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * Applies the migrations `schema` lacks, creating the schema when missing, under an advisory lock so that
 * concurrent first uses from several processes are safe.
 * @param pool where to apply them
 * @param schema the quoted schema name (`quoteIdentifier`)
 * @param schemaName the unquoted name, for the lock key and messages
 * @throws {StoreSchemaVersionError} when the database has a newer schema version than this package knows.
 */
export async function applyMigrations(pool: pg.Pool, schema: string, schemaName: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `attractor:migrations:${schemaName}`,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
       )`,
    );
    const applied = await client.query<{ version: number }>(
      `SELECT version FROM ${schema}.schema_migrations`,
    );
    const versions = new Set(applied.rows.map((row) => row.version));
    const newest = Math.max(0, ...versions);
    if (newest > SCHEMA_VERSION) {
      throw new StoreSchemaVersionError({ schema: schemaName, found: newest, known: SCHEMA_VERSION });
    }
    for (const migration of MIGRATIONS) {
      if (versions.has(migration.version)) continue;
      await client.query(migration.sql(schema));
      await client.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
  });
}
