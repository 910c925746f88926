/**
 * Secret redaction for events and status files (DESIGN.md "Events": secrets are never written to any log).
 */

/** What replaces a redacted value. */
export const REDACTED = '[REDACTED]';

const SECRET_WORDS = new Set([
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'credential',
  'credentials',
]);
/** Keys ending in `key` that are not secrets. */
const NOT_SECRET = new Set(['thread key', 'sort key', 'accelerator key']);

/**
 * Whether a key names a secret, like an environment variable `*KEY*`, `*TOKEN*`, `*SECRET*` (or `password`,
 * `credential`): the key is split into words at `_ . - /`, spaces and camelCase humps. A word `token`, `secret`,
 * `password`, `credential(s)` or `apikey` marks a secret, and so does `key` after another word (`API_KEY`,
 * `apiKey`), but not a bare `key` (a question option's accelerator key) or `threadKey`.
 * `OPENAI_API_KEY`, `apiKey`, `github.token` are secret; `key`, `inputTokens`, `monkey`, `keyboard` are not.
 */
export function isSecretKey(key: string): boolean {
  let known = secretKeyCache.get(key);
  if (known === undefined) {
    known = classifyKey(key);
    // Event and context keys repeat endlessly; bound the memo anyway.
    if (secretKeyCache.size > 10_000) secretKeyCache.clear();
    secretKeyCache.set(key, known);
  }
  return known;
}

const secretKeyCache = new Map<string, boolean>();

function classifyKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.\-/:]+/)
    .filter((word) => word !== '');
  if (words.some((word) => SECRET_WORDS.has(word))) return true;
  const last = words.length - 1;
  return last >= 1 && words[last] === 'key' && !NOT_SECRET.has(`${words[last - 1]} key`);
}

/**
 * A copy of `value` in which every string under a secret key (see {@link isSecretKey}) is replaced by
 * `[REDACTED]`, and every occurrence of a known secret value (at least 4 characters) inside any string is too.
 * Returns the original object when nothing changed.
 */
export function redactSecrets<TValue>(value: TValue, secretValues: readonly string[] = []): TValue {
  const secrets =
    secretValues.length === 0 ? secretValues : secretValues.filter((secret) => secret.length >= 4);
  return redact(value, secrets) as TValue;
}

// Events and status files are redacted on every node: copy only what changes, and nothing when nothing does.
function redact(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') {
    let result = value;
    for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    return result;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let items: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const next = redact(item, secrets);
      if (next !== item) {
        items ??= value.slice();
        items[index] = next;
      }
    }
    return items ?? value;
  }
  let result: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item: unknown = (value as Record<string, unknown>)[key];
    const next = typeof item === 'string' && isSecretKey(key) ? REDACTED : redact(item, secrets);
    if (next !== item) {
      result ??= { ...value };
      result[key] = next;
    }
  }
  return result ?? value;
}
