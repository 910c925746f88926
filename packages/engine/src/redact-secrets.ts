/**
 * The one secret masker (docs/architecture.md "Secrets"): every boundary where data is persisted, streamed,
 * displayed or sent to a model (run store, events, stage files, console, server responses, preambles) masks
 * with it. It knows three kinds of secret:
 *
 * - values of environment variables whose names look secret ({@link isSecretEnvName}) or that the user named
 *   (`--secret NAME`, config `secrets`), collected by {@link secretValuesFromEnv};
 * - well-known token shapes ({@link SECRET_TOKEN_PATTERN}: `sk-…`, `ghp_…`, `github_pat_…`, `xox…`, `AKIA…`);
 * - string values under secret-looking keys of structured data ({@link isSecretKey}: `deploy_token`, `apiKey`).
 */

/** What replaces a masked value. */
export const REDACTED = '[REDACTED]';

/** Upper-case fragments that make an environment variable name secret (`*KEY*`, `*TOKEN*`, ...). */
export const SECRET_ENV_NAME_FRAGMENTS = [
  'KEY',
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'CREDENTIAL',
  'AUTH',
] as const;

/**
 * Well-known token shapes, masked wherever they appear even when no environment variable holds them: OpenAI and
 * Anthropic keys (`sk-…`), GitHub tokens (`ghp_…`, `gho_…`, `ghu_…`, `ghs_…`, `ghr_…`, `github_pat_…`), Slack
 * tokens (`xoxb-…`, `xoxp-…`, ...), AWS access key ids (`AKIA…`). Global flag: use with `replace`.
 */
export const SECRET_TOKEN_PATTERN =
  /\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposer]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16})\b/g;

/** Secret values shorter than this are not masked: masking `1` or `on` everywhere would garble every text. */
export const MIN_SECRET_LENGTH = 4;

/** Values that common secret-named variables hold but that are not secrets (`GIT_TERMINAL_PROMPT_AUTH=true`). */
const NOT_SECRET_VALUES = new Set(['true', 'false', 'null', 'none', 'undefined', 'yes', 'no']);

/**
 * Whether an environment variable name looks secret: it contains (case-insensitively) `KEY`, `TOKEN`, `SECRET`,
 * `PASSWORD`, `PASSWD`, `CREDENTIAL` or `AUTH`. `OPENAI_API_KEY`, `GITHUB_TOKEN`, `MY_PASSWORD`,
 * `AWS_SECRET_ACCESS_KEY` are secret; `PATH`, `HOME` are not.
 */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_ENV_NAME_FRAGMENTS.some((fragment) => upper.includes(fragment));
}

/** Options of {@link secretValuesFromEnv}. */
export interface SecretValuesFromEnvOptions {
  /** The environment to read (the CLI passes `process.env`; library code never reads it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Further variable names whose values are secret whatever they are called (`--secret NAME`). */
  readonly names?: readonly string[];
}

/**
 * The values of the secret-named variables of `env` ({@link isSecretEnvName}) and of the variables in `names`,
 * at least {@link MIN_SECRET_LENGTH} characters long, longest first, without duplicates.
 */
export function secretValuesFromEnv(options: SecretValuesFromEnvOptions): string[] {
  const extra = new Set(options.names ?? []);
  const values = new Set<string>();
  for (const [name, value] of Object.entries(options.env)) {
    if (value === undefined || (!extra.has(name) && !isSecretEnvName(name))) continue;
    if (isWorthMasking(value)) values.add(value);
  }
  return [...values].sort((left, right) => right.length - left.length);
}

function isWorthMasking(value: string): boolean {
  return value.trim().length >= MIN_SECRET_LENGTH && !NOT_SECRET_VALUES.has(value.trim().toLowerCase());
}

const SECRET_WORDS = new Set([
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'credential',
  'credentials',
  'auth',
  'authorization',
]);
/** Keys ending in `key` that are not secrets. */
const NOT_SECRET = new Set(['thread key', 'sort key', 'accelerator key']);

/**
 * Whether a key of structured data (a context key, an event field) names a secret: the key is split into words at
 * `_ . - /`, spaces and camelCase humps. A word `token`, `secret`, `password`, `credential(s)`, `auth`,
 * `authorization` or `apikey` marks a secret, and so does `key` after another word (`API_KEY`, `apiKey`), but not a
 * bare `key` (a question option's accelerator key) or `threadKey`.
 * `OPENAI_API_KEY`, `apiKey`, `github.token`, `deploy_token` are secret; `key`, `inputTokens`, `monkey`,
 * `keyboard`, `author` are not.
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
 * Masks secrets in text and in JSON-like data. Create one per run with {@link createSecretMasker} and hand it to
 * every boundary.
 */
export interface SecretMasker {
  /** The known secret values (longest first), for boundaries that stream text (see {@link SecretMasker.maskText}). */
  readonly values: readonly string[];
  /** Length of the longest known value: a streaming masker holds back this many characters minus one. */
  readonly longestValueLength: number;
  /** `text` with every known value and every well-known token shape replaced by `[REDACTED]`. */
  maskText(text: string): string;
  /**
   * A copy of `value` in which every string is masked like {@link SecretMasker.maskText}, and every string under a
   * secret key ({@link isSecretKey}) is replaced whole. Returns the original object when nothing changed.
   */
  mask<TValue>(value: TValue): TValue;
}

/** Options of {@link createSecretMasker}. */
export interface SecretMaskerOptions {
  /** Known secret values (see {@link secretValuesFromEnv}); values under 4 characters are ignored. */
  readonly values?: readonly string[];
}

/**
 * Creates the {@link SecretMasker} of a run.
 *
 * @example
 * const masker = createSecretMasker({ values: secretValuesFromEnv({ env: process.env, names: ['DB_URL'] }) });
 * masker.maskText(`token ${process.env.GITHUB_TOKEN}`); // 'token [REDACTED]'
 */
export function createSecretMasker(options: SecretMaskerOptions = {}): SecretMasker {
  const values = [...new Set((options.values ?? []).filter(isWorthMasking))].sort(
    (left, right) => right.length - left.length,
  );
  // Keys, ids, statuses and timestamps repeat in every event and checkpoint: remember the masked form of short text.
  const remembered = new Map<string, string>();
  const maskText = (text: string): string => {
    // Without known values only token shapes are looked for: one regular expression test, cheaper than the memo.
    if (values.length === 0 || text.length > MAX_REMEMBERED_LENGTH) return maskString(text, values);
    let masked = remembered.get(text);
    if (masked === undefined) {
      if (remembered.size >= MAX_REMEMBERED_TEXTS) remembered.clear();
      masked = maskString(text, values);
      remembered.set(text, masked);
    }
    return masked;
  };
  return {
    values,
    longestValueLength: values[0]?.length ?? 0,
    maskText,
    mask: <TValue>(value: TValue): TValue => redact(value, maskText, 0) as TValue,
  };
}

/** Text up to this many characters has its masked form remembered by a {@link SecretMasker}. */
const MAX_REMEMBERED_LENGTH = 256;
/** How many masked texts a {@link SecretMasker} remembers before it starts over. */
const MAX_REMEMBERED_TEXTS = 5_000;

/**
 * A copy of `value` in which every string under a secret key (see {@link isSecretKey}) is replaced by
 * `[REDACTED]`, and every occurrence of a known secret value (at least 4 characters) or a well-known token shape
 * inside any string is too. Returns the original object when nothing changed. Same as
 * `createSecretMasker({ values: secretValues }).mask(value)`.
 */
export function redactSecrets<TValue>(value: TValue, secretValues: readonly string[] = []): TValue {
  const secrets = secretValues.length === 0 ? secretValues : secretValues.filter(isWorthMasking);
  return redact(value, (text) => maskString(text, secrets), 0) as TValue;
}

function maskString(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  // JSON text (a context value written into a prompt or a response): the value of a secret-named key.
  if (result.includes('":')) result = maskJsonMembers(result);
  // Cheap pre-checks keep the full pattern off the common path: most strings are shorter than any token shape (ids,
  // statuses, timestamps) or hold no token prefix at all.
  if (result.length >= MIN_TOKEN_LENGTH && TOKEN_PREFIX.test(result))
    result = result.replace(SECRET_TOKEN_PATTERN, REDACTED);
  return result;
}

/** A JSON member whose value is a string or a number: `"key": "value"` or `"key": 123`. Global: use with `replace`. */
const JSON_MEMBER = /"((?:[^"\\\n]|\\.){1,200})"(\s*:\s*)("(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*)/g;

/** `text` with the value of every JSON member under a secret-named key ({@link isSecretKey}) replaced. */
function maskJsonMembers(text: string): string {
  return text.replace(JSON_MEMBER, (member: string, key: string, colon: string) =>
    isSecretKey(key) ? `"${key}"${colon}"${REDACTED}"` : member,
  );
}

/** The length of the shortest text {@link SECRET_TOKEN_PATTERN} matches (`xoxb-` and 10 characters). */
const MIN_TOKEN_LENGTH = 15;

/** The prefixes of {@link SECRET_TOKEN_PATTERN}'s token shapes: a string without one holds no token. */
const TOKEN_PREFIX = /sk-|gh[pousr]_|github_pat_|xox[abposer]-|AKIA|ASIA/;

/** Deeper data is masked whole: a 100,000-deep JSON value must not overflow the stack here. */
const MAX_DEPTH = 1000;

/** Masks every string and number: the leaves of a value found under a secret key. */
const maskWhole = (): string => REDACTED;

// Events and status files are masked on every node: copy only what changes, and nothing when nothing does.
// Under a secret key (`client_secret`, `credentials`), every string and number below is masked whole, at any depth:
// `{ cfg: { client_secret: { value: "…" } } }` keeps its shape and loses the value (issue 34 §12).
function redact(value: unknown, maskText: (text: string) => string, depth: number): unknown {
  if (typeof value === 'string') return maskText(value);
  if (typeof value === 'number') return maskText === maskWhole ? REDACTED : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) {
    let items: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const next = redact(item, maskText, depth + 1);
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
    const next =
      item === null || typeof item === 'boolean'
        ? item
        : redact(item, maskText !== maskWhole && isSecretKey(key) ? maskWhole : maskText, depth + 1);
    if (next !== item) {
      result ??= { ...value };
      result[key] = next;
    }
  }
  return result ?? value;
}
