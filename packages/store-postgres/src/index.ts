export type { PostgresRunCatalog, PostgresRunCatalogOptions } from './create-postgres-run-catalog.js';
export { createPostgresRunCatalog, describeLocation } from './create-postgres-run-catalog.js';
export { StoreSchemaVersionError } from './errors/store-schema-version-error.js';
export { SCHEMA_VERSION } from './migrations.js';
export { BLOB_CHUNK_BYTES } from './postgres-run-store.js';
