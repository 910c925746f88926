/**
 * One transaction on a pooled connection: `BEGIN`, the work, `COMMIT`; `ROLLBACK` when the work throws. The
 * connection goes back to the pool in every case.
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
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
