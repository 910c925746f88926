import { randomUUID } from 'node:crypto';
import { describeRunStoreContract } from '@attractor/engine/test';
import { afterAll, beforeAll, describe } from 'vitest';
import { createPostgresRunCatalog, type PostgresRunCatalog } from '../src/index.js';
import { adminQuery, freshSchema, postgresAvailable, usePostgresServer } from './support/postgres.js';

describe.skipIf(!postgresAvailable)('PostgreSQL run store (a real server)', () => {
  const server = usePostgresServer();
  const schema = freshSchema();
  let catalog: PostgresRunCatalog;
  beforeAll(() => {
    catalog = createPostgresRunCatalog({ connectionString: server().url, schema });
  });
  afterAll(async () => {
    await catalog?.close();
  });

  describeRunStoreContract('PostgreSQL store', async () => {
    const runId = randomUUID();
    return {
      store: catalog.open(runId),
      // What a holder's death looks like to the database: its connection ends, and with it the advisory lock.
      async killLockHolder() {
        await adminQuery(
          server().url,
          `SELECT pg_terminate_backend(backend_pid) FROM "${schema}".run_locks WHERE run_key = $1`,
          [runId],
        );
        await waitUntil(async () => (await catalog.open(runId).readLock()) === undefined);
      },
    };
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
