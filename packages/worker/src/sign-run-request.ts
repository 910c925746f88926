/**
 * Authenticating the queue's request rows: whoever enqueues with the queue key (shared by the CLI, the server and
 * the workers; the CLI reads `ATTRACTOR_QUEUE_KEY`) stores an HMAC-SHA256 of the run id and the
 * request beside the row; a worker with the key refuses a row whose HMAC is missing or wrong, so a row that someone
 * with only database access inserted or changed never runs. The HMAC covers the request as PostgreSQL stores it
 * (`request::text` of the `jsonb` column, a canonical form), so key order and spacing cannot break it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Shortest queue key accepted, in characters: a short key would be guessed. */
export const MIN_QUEUE_KEY_LENGTH = 16;

/**
 * The HMAC-SHA256 (hex) of a run's request under `key`.
 * @param options.requestText - the request as PostgreSQL's `request::text` returns it.
 */
export function signRunRequest(options: {
  readonly key: string;
  readonly runId: string;
  readonly requestText: string;
}): string {
  return createHmac('sha256', options.key).update(`${options.runId}\n${options.requestText}`).digest('hex');
}

/** Whether `signature` is the HMAC of the request under `key` (compared in constant time). */
export function verifyRunRequest(options: {
  readonly key: string;
  readonly runId: string;
  readonly requestText: string;
  readonly signature: string | null | undefined;
}): boolean {
  if (options.signature === null || options.signature === undefined) return false;
  const expected = Buffer.from(signRunRequest(options), 'hex');
  const given = Buffer.from(options.signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Checks a queue key. Returns a reason when it is unusable (too short), else undefined.
 */
export function queueKeyProblem(key: string): string | undefined {
  return key.length < MIN_QUEUE_KEY_LENGTH
    ? `the queue key is ${key.length} characters long; use at least ${MIN_QUEUE_KEY_LENGTH} random characters (e.g. \`openssl rand -hex 32\`)`
    : undefined;
}
