/**
 * The run lock across machines (one run, one runner): a session-level advisory lock of PostgreSQL, held by a
 * connection of its own for as long as the run executes, plus a `run_locks` row naming the holder (pid, host, since,
 * the process groups of its running stage commands, and the server process of its connection).
 *
 * The database ends the lock itself when the holder dies: a killed process's connection closes and PostgreSQL
 * releases its advisory locks at once (a vanished machine: once TCP keepalive gives up on it). So a holder is live
 * exactly while its advisory lock is granted, and a row whose lock is gone is a stale record that the next runner
 * replaces, after killing the process groups it names when they ran on this host.
 */
import { hostname } from 'node:os';
import { type RunLock, RunLockedError, type RunLockHolder } from '@attractor/engine';
import { killProcessGroup, processGroupAlive } from '@attractor/engine/internal';
import pg from 'pg';

/** The `run_locks` row as read. */
export interface LockRow {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  readonly process_groups: readonly number[];
}

/** What the lock needs from its store. */
export interface PostgresRunLockOptions {
  /** Connection settings for the lock's own connection. */
  readonly clientConfig: pg.ClientConfig;
  /** The quoted schema name. */
  readonly schema: string;
  /** The unquoted schema name (part of the advisory lock key). */
  readonly schemaName: string;
  readonly runKey: string;
  /** For messages (`RunLockedError.logsRoot`). */
  readonly logsRoot: string;
  /** When the lock is taken (ISO-8601). */
  readonly since: string;
  /** Called with the lock's connection when it is taken (`held` true) and when it is released (false). */
  readonly track: (client: pg.Client, held: boolean) => void;
  /** Called when the lock's connection ends or breaks while the lock is held (the lock is gone with it). */
  readonly onLost: () => void;
}

/** The text whose 64-bit hash (`hashtextextended`) is the advisory lock key of a run. */
export function lockKeyText(schemaName: string, runKey: string): string {
  return `attractor:run:${schemaName}:${runKey}`;
}

/**
 * SQL condition: the `run_locks` row `alias` belongs to a live holder (its advisory lock is granted to the server
 * process recorded in the row). A bigint advisory key shows in `pg_locks` as classid (high 32 bits), objid (low 32
 * bits) and objsubid 1.
 */
export function liveLockCondition(alias: string): string {
  return `EXISTS (
    SELECT 1 FROM pg_catalog.pg_locks p
    WHERE p.locktype = 'advisory' AND p.granted AND p.objsubid = 1 AND p.pid = ${alias}.backend_pid
      AND p.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
      AND ((p.classid::bigint << 32) | p.objid::bigint) = ${alias}.lock_key)`;
}

/**
 * Takes the run lock: opens a connection and tries the advisory lock. When the lock was free but a holder row
 * remains, that holder died: the process groups it recorded are killed (SIGKILL) when it ran on this host, and the
 * row is replaced.
 * @throws {RunLockedError} naming the live holder when another runner holds the lock.
 */
export async function acquirePostgresRunLock(options: PostgresRunLockOptions): Promise<RunLock> {
  const { schema, runKey } = options;
  const client = new pg.Client(options.clientConfig);
  // A connection lost while idle (server restart) is reported here; the lock is gone with it.
  client.on('error', () => undefined);
  await client.connect();
  let holder: RunLockHolder;
  let ended: number[];
  try {
    const tried = await client.query<{ ok: boolean; key: string }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok, hashtextextended($1, 0)::text AS key',
      [lockKeyText(options.schemaName, runKey)],
    );
    const { ok, key } = tried.rows[0]!;
    if (!ok) {
      const row = await client.query<LockRow>(
        `SELECT pid, host, since, process_groups FROM ${schema}.run_locks WHERE run_key = $1`,
        [runKey],
      );
      throw new RunLockedError({ logsRoot: options.logsRoot, holder: holderOf(row.rows[0]) });
    }
    const stale = await client.query<LockRow>(
      `SELECT pid, host, since, process_groups FROM ${schema}.run_locks WHERE run_key = $1`,
      [runKey],
    );
    const dead = stale.rows[0];
    ended =
      dead !== undefined && dead.host === hostname()
        ? dead.process_groups.filter((group) => processGroupAlive(group))
        : [];
    for (const group of ended) killProcessGroup(group, 'SIGKILL');
    holder = { pid: process.pid, host: hostname(), since: options.since };
    await client.query(
      `INSERT INTO ${schema}.run_locks (run_key, lock_key, pid, host, since, process_groups, backend_pid)
       VALUES ($1, $2::bigint, $3, $4, $5, '{}', pg_backend_pid())
       ON CONFLICT (run_key) DO UPDATE SET lock_key = EXCLUDED.lock_key, pid = EXCLUDED.pid, host = EXCLUDED.host,
         since = EXCLUDED.since, process_groups = '{}', backend_pid = EXCLUDED.backend_pid,
         taken_at = clock_timestamp()`,
      [runKey, key, holder.pid, holder.host, holder.since],
    );
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  options.track(client, true);
  let released = false;
  const lost = () => {
    if (!released) options.onLost();
  };
  client.on('end', lost);
  client.on('error', lost);
  return {
    get holder() {
      return holder;
    },
    endedProcessGroups: ended,
    async setProcessGroups(processGroupIds) {
      if (released) return;
      holder = { ...holder, process_groups: [...processGroupIds] };
      await client.query(
        `UPDATE ${schema}.run_locks SET process_groups = $2 WHERE run_key = $1 AND backend_pid = pg_backend_pid()`,
        [runKey, [...processGroupIds]],
      );
    },
    async release() {
      if (released) return;
      released = true;
      options.track(client, false);
      // Best effort: when the connection is gone, so is the lock, and a leftover row names no live holder.
      try {
        await client.query(
          `DELETE FROM ${schema}.run_locks WHERE run_key = $1 AND backend_pid = pg_backend_pid()`,
          [runKey],
        );
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [
          lockKeyText(options.schemaName, runKey),
        ]);
      } catch {
        // Ending the connection below releases the advisory lock in any case.
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
}

/** The holder a `run_locks` row describes. */
export function holderOf(row: LockRow | undefined): RunLockHolder | undefined {
  if (row === undefined) return undefined;
  return {
    pid: row.pid,
    host: row.host,
    since: row.since,
    ...(row.process_groups.length > 0 ? { process_groups: [...row.process_groups] } : {}),
  };
}

/** SQL selecting the live holder row of a run (`$1`: the run key). */
export function liveHolderQuery(schema: string): string {
  return `SELECT l.pid, l.host, l.since, l.process_groups FROM ${schema}.run_locks l
          WHERE l.run_key = $1 AND ${liveLockCondition('l')}`;
}
