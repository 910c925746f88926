/** A running throw-away PostgreSQL server (see `startPostgresServer`). */
export interface PostgresTestServer {
  /** `postgres://attractor:<password>@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** The directory of the server's unix socket (`.s.PGSQL.<port>`), inside its temporary directory. */
  readonly socketDirectory: string;
  /** Stops the server (immediate shutdown) and removes its temporary directory. Idempotent. */
  stop(): Promise<void>;
  /** Stops the server (fast shutdown: its clients' connections drop), keeping its data and port, as an outage does. */
  pause(): Promise<void>;
  /** Starts a paused server again on the same port with the same data; resolves once it accepts connections. */
  resume(): Promise<void>;
}

/**
 * Why no PostgreSQL server can be started here (naming the package to install), or `undefined` when one can.
 */
export function postgresUnavailableReason(): string | undefined;

/**
 * True when a PostgreSQL server can be started; otherwise writes one line to stderr (once per `what`) naming the
 * package to install and returns false, so the caller skips the tests named `what`.
 * @throws Error when CI=true and PostgreSQL is unavailable: CI must run these tests.
 */
export function postgresAvailableForTests(what: string): boolean;

/**
 * Starts a fresh PostgreSQL server (initdb + pg_ctl, as the `postgres` user under root) in a temporary directory
 * on a free port of 127.0.0.1; `stop()` (or the process's exit) stops it and removes the directory.
 * `durable: true` keeps fsync and synchronous commit on (default off, for speed).
 * @throws Error naming the package to install when PostgreSQL is missing, or with the server log when it fails.
 */
export function startPostgresServer(options?: { readonly durable?: boolean }): Promise<PostgresTestServer>;
