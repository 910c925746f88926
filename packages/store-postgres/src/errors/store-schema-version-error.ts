import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * Thrown by the PostgreSQL run store on first use when the database's schema was migrated by a newer
 * `@attractor/store-postgres` than the one running: this version cannot know what the newer tables mean.
 */
export class StoreSchemaVersionError extends AttractorError<'STORE_SCHEMA_VERSION'> {
  override readonly name = 'StoreSchemaVersionError';
  /** The PostgreSQL schema holding the run store. */
  readonly schema: string;
  /** The newest migration version applied to the database. */
  readonly found: number;
  /** The newest migration version this package knows. */
  readonly known: number;
  readonly retryable = false;

  constructor(options: { schema: string; found: number; known: number }) {
    super({
      code: 'STORE_SCHEMA_VERSION',
      message: `The run store in PostgreSQL schema "${options.schema}" is at version ${options.found}, newer than this @attractor/store-postgres knows (${options.known}). Upgrade @attractor/store-postgres on this machine (every worker and server should run the same version).`,
    });
    this.schema = options.schema;
    this.found = options.found;
    this.known = options.known;
  }

  /** True for an error of this class from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(StoreSchemaVersionError);
}
