/**
 * The PostgreSQL run catalog, in a module of its own: `shared-locations.ts` loads it lazily, for `postgres://` stores
 * only.
 */
export { createPostgresRunCatalog } from '@attractor/store-postgres';
