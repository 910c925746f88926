/**
 * A real PostgreSQL server per test file (tools/postgres-server.mjs: Debian's initdb/pg_ctl in a temporary
 * directory), and catalogs on it. Without PostgreSQL the tests skip with one line naming the package; under CI=true
 * they fail instead.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../../tools/postgres-server.mjs';

/** True when a PostgreSQL server can be started here (else the caller skips, and one line says why). */
export const postgresAvailable = postgresAvailableForTests('the @attractor/store-postgres tests');

/**
 * Starts a server before the file's tests and stops it after them; returns a getter for it. Call at the top of a
 * `describe.skipIf(!postgresAvailable)` block.
 */
export function usePostgresServer(): () => PostgresTestServer {
  let server: PostgresTestServer | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server === undefined) throw new Error('the PostgreSQL test server has not started');
    return server;
  };
}

/** A fresh schema name, so that tests sharing a server never see each other's runs. */
export function freshSchema(): string {
  return `t_${randomUUID().replaceAll('-', '')}`;
}

/** Runs one query on a connection of its own (administration in tests: terminate a backend, inspect tables). */
export async function adminQuery<TRow extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<TRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<TRow>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
