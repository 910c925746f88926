/**
 * One transaction: `BEGIN`, the work, `COMMIT`; `ROLLBACK` when the work throws. On a pooled connection, which goes
 * back to the pool in every case, or on a connection the caller holds.
 */
import type pg from 'pg';

/**
 * Runs `work` in a transaction on a connection of `pool` and returns its result.
 * @throws whatever `work` or the commit throws, after rolling back.
 */
export async function withTransaction<TResult>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<TResult>,
): Promise<TResult> {
  const client = await pool.connect();
  try {
    return await inTransaction(client, () => work(client));
  } finally {
    client.release();
  }
}

/**
 * Runs `work` between `BEGIN` and `COMMIT` on `client` (which `work` uses) and returns its result.
 * @throws whatever `work` or the commit throws, after rolling back.
 */
export async function inTransaction<TResult>(
  client: pg.ClientBase,
  work: () => Promise<TResult>,
): Promise<TResult> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
