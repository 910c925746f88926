/**
 * Named prepared statements: the server parses and plans a statement once per connection, not on every call (`pg`
 * keeps the names a connection has prepared). The store's statements are few and fixed (their SQL varies only with
 * the schema name and the columns a run index change touches), so a name per distinct text stays bounded.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';

const names = new Map<string, string>();

/** The query config running `sql` with `params` as a named prepared statement. */
export function prepared(sql: string, params: readonly unknown[]): pg.QueryConfig {
  let name = names.get(sql);
  if (name === undefined) {
    name = `attractor_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return { name, text: sql, values: params as unknown[] };
}
