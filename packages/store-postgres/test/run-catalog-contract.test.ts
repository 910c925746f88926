import { describeRunCatalogContract } from '@attractor/engine/test';
import { describe } from 'vitest';
import { createPostgresRunCatalog } from '../src/index.js';
import { freshSchema, postgresAvailable, usePostgresServer } from './support/postgres.js';

describe.skipIf(!postgresAvailable)('PostgreSQL run catalog (a real server)', () => {
  const server = usePostgresServer();
  // A schema per catalog: each starts empty.
  describeRunCatalogContract('PostgreSQL catalog', () => ({
    catalog: createPostgresRunCatalog({ connectionString: server().url, schema: freshSchema() }),
  }));
});
