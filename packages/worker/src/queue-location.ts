/**
 * Reading and describing the queue's location (`--queue <url>` / `ATTRACTOR_QUEUE_URL`): a `postgres://` URL.
 * Messages show it without its password, and a connection fault becomes a {@link QueueUnavailableError} that says
 * what to do.
 */
import { QueueUnavailableError } from './errors/queue-unavailable-error.js';

/** The setting a queue URL comes from, for messages. */
export const QUEUE_SETTING = '--queue / ATTRACTOR_QUEUE_URL';

/**
 * The URL without its password, e.g. `postgres://attractor@db:5432/attractor`.
 * @throws {QueueUnavailableError} when `url` is not a `postgres://` or `postgresql://` URL.
 */
export function describeQueueLocation(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new QueueUnavailableError({
      message: `The queue URL "${redactLoose(url)}" (${QUEUE_SETTING}) is not a URL. Use a PostgreSQL URL such as postgres://user:password@host:5432/attractor.`,
      location: redactLoose(url),
      retryable: false,
      cause: error,
    });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new QueueUnavailableError({
      message: `The queue URL (${QUEUE_SETTING}) uses "${parsed.protocol}"; the queue runs on PostgreSQL (pg-boss). Use a URL such as postgres://user:password@host:5432/attractor.`,
      location: redactLoose(url),
      retryable: false,
    });
  }
  parsed.password = '';
  return parsed.toString();
}

/** A text that may not parse as a URL, with anything between `:` and `@` of its authority masked. */
function redactLoose(text: string): string {
  return text.replace(/(\/\/[^/:@]*:)[^@/]*@/, '$1***@');
}

/** Turns a connection fault of `pg` (or pg-boss) into a {@link QueueUnavailableError} naming the setting and the fix. */
export function queueUnavailable(error: unknown, location: string): QueueUnavailableError {
  if (QueueUnavailableError.isInstance(error)) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const where = `the queue's PostgreSQL at ${location} (${QUEUE_SETTING})`;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEDOUT') {
    return new QueueUnavailableError({
      message: `Cannot reach ${where}: ${message}. Start PostgreSQL there, or point ${QUEUE_SETTING} at a running server.`,
      location,
      retryable: true,
      cause: error,
    });
  }
  if (code === '28P01' || code === '28000') {
    return new QueueUnavailableError({
      message: `${capitalize(where)} refused the login: ${message}. Fix the user and password in the URL.`,
      location,
      retryable: false,
      cause: error,
    });
  }
  if (code === '3D000') {
    return new QueueUnavailableError({
      message: `${capitalize(where)}: ${message}. Create the database (createdb) or fix its name in the URL.`,
      location,
      retryable: false,
      cause: error,
    });
  }
  return new QueueUnavailableError({
    message: `${capitalize(where)} failed: ${message}. Check that the URL names a PostgreSQL 13+ server the user may create tables in.`,
    location,
    retryable: true,
    cause: error,
  });
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
