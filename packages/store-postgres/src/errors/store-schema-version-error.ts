const MARKER = Symbol.for('attractor.error.StoreSchemaVersionError');

/**
 * Thrown by the PostgreSQL run store on first use when the database's schema was migrated by a newer
 * `@attractor/store-postgres` than the one running: this version cannot know what the newer tables mean.
 */
export class StoreSchemaVersionError extends Error {
  override readonly name = 'StoreSchemaVersionError';
  readonly code = 'STORE_SCHEMA_VERSION';
  /** The PostgreSQL schema holding the run store. */
  readonly schema: string;
  /** The newest migration version applied to the database. */
  readonly found: number;
  /** The newest migration version this package knows. */
  readonly known: number;
  readonly retryable = false;
  readonly [MARKER] = true;

  constructor(options: { schema: string; found: number; known: number }) {
    super(
      `The run store in PostgreSQL schema "${options.schema}" is at version ${options.found}, newer than this @attractor/store-postgres knows (${options.known}). Upgrade @attractor/store-postgres on this machine (every worker and server should run the same version).`,
    );
    this.schema = options.schema;
    this.found = options.found;
    this.known = options.known;
  }

  /** True for a `StoreSchemaVersionError` from any copy of this package. */
  static isInstance(error: unknown): error is StoreSchemaVersionError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
