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
