/**
 * Secrets and the queue's request rows (spec §5.1 keeps secrets out of persisted state; the queue's table is one
 * more such place). `enqueueRun` stores a value under a secret-named key (`deploy_token`, `apiKey`, see `isSecretKey`
 * of `@attractor/engine`) as `[REDACTED]`, and refuses a secret anywhere else (a token inside `repo_url`): it could
 * not be masked without changing what the run gets. The worker then takes each masked value from its own
 * environment, from the variable {@link secretVariableName} names (`deploy_token` → `DEPLOY_TOKEN`), and masks it in
 * everything the run writes.
 */
import { isSecretKey, type JsonValue, REDACTED, redactSecrets } from '@attractor/engine';
import { RunRefusedError } from './errors/run-refused-error.js';
import { SecretInRequestError } from './errors/secret-in-request-error.js';
import type { RunRequest } from './queued-run.js';

/** Deeper values are refused rather than walked (a hostile context must not overflow the stack). */
const MAX_DEPTH = 100;

/**
 * The environment variable a worker reads a masked context value from: the key path joined by `_`, upper-cased,
 * every other character than a letter or digit as `_`. `deploy_token` → `DEPLOY_TOKEN`; `cfg.client_secret` (the key
 * `client_secret` of the object `cfg`) → `CFG_CLIENT_SECRET`.
 */
export function secretVariableName(path: readonly string[]): string {
  return path
    .join('_')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/**
 * The request as the queue stores it: strings under secret-named keys of `context` and `options` replaced by
 * `[REDACTED]`. Pure.
 * @param secretValues - values known to be secret (the enqueuer's API keys); token shapes (`ghp_…`, `sk-…`) always are.
 * @throws {SecretInRequestError} when a secret value or token shape is part of a string under another key.
 */
export function maskRunRequest(request: RunRequest, secretValues: readonly string[] = []): RunRequest {
  return {
    ...request,
    ...(request.context === undefined
      ? {}
      : { context: maskRecord(request.context, ['context'], secretValues) }),
    ...(request.options === undefined
      ? {}
      : { options: maskRecord(request.options, ['options'], secretValues) }),
  };
}

function maskRecord(
  record: Readonly<Record<string, JsonValue>>,
  path: readonly string[],
  secretValues: readonly string[],
): Record<string, JsonValue> {
  return maskValue(record, path, secretValues, 0) as Record<string, JsonValue>;
}

function maskValue(
  value: JsonValue,
  path: readonly string[],
  secretValues: readonly string[],
  depth: number,
): JsonValue {
  if (depth > MAX_DEPTH) {
    throw new SecretInRequestError({
      path: path.join('.'),
      message: `${path.join('.')} is nested more than ${MAX_DEPTH} levels deep; the queue does not store it. Flatten the value.`,
    });
  }
  if (typeof value === 'string') {
    const key = path.at(-1) ?? '';
    if (path.length > 1 && isSecretKey(key)) return REDACTED;
    if (redactSecrets(value, secretValues) !== value) {
      throw new SecretInRequestError({
        path: path.join('.'),
        message: `${path.join('.')} holds a secret (a token or the value of a secret environment variable), and the run queue never stores one. Put the secret under a key that names it (e.g. ${key === '' ? 'a' : `${key}`}_token): the queue stores such a value masked and every worker takes it from its own environment variable (${secretVariableName([...path.slice(1, -1), `${key}_token`])}).`,
      });
    }
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    return value.map((item, index) => maskValue(item, [...path, String(index)], secretValues, depth + 1));
  }
  const masked: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) {
    masked[key] = maskValue(item, [...path, key], secretValues, depth + 1);
  }
  return masked;
}

/** A request's context with its masked secrets taken from the worker's environment. */
export interface ResolvedSecretContext {
  readonly context: Readonly<Record<string, JsonValue>> | undefined;
  /** The values taken from the environment: the run masks them in everything it writes. */
  readonly secretValues: readonly string[];
}

/**
 * Puts back the secrets {@link maskRunRequest} masked in a request's context: each `[REDACTED]` under a secret-named
 * key becomes the value of the environment variable {@link secretVariableName} names. Pure.
 * @param environment - the worker's environment (the CLI passes `process.env`).
 * @throws {RunRefusedError} naming every variable that is not set, so that the run does not start with `[REDACTED]`.
 */
export function resolveSecretContext(
  context: Readonly<Record<string, JsonValue>> | undefined,
  environment: Readonly<Record<string, string | undefined>>,
): ResolvedSecretContext {
  if (context === undefined) return { context, secretValues: [] };
  const secretValues: string[] = [];
  const missing: string[] = [];
  const resolve = (value: JsonValue, path: readonly string[], depth: number): JsonValue => {
    if (typeof value === 'string') {
      const key = path.at(-1) ?? '';
      if (value !== REDACTED || !isSecretKey(key)) return value;
      const variable = secretVariableName(path);
      const found = environment[variable];
      if (found === undefined || found === '') {
        missing.push(`${path.join('.')} (${variable})`);
        return value;
      }
      secretValues.push(found);
      return found;
    }
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
    if (Array.isArray(value))
      return value.map((item, index) => resolve(item, [...path, String(index)], depth + 1));
    const resolved: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) resolved[key] = resolve(item, [...path, key], depth + 1);
    return resolved;
  };
  const resolved = resolve(context, [], 0) as Record<string, JsonValue>;
  if (missing.length > 0) {
    throw new RunRefusedError({
      message: `The run's context holds secrets that the queue stores masked, and this worker's environment does not have them: ${missing.join(', ')}. Set ${missing.length === 1 ? 'that variable' : 'those variables'} in the environment of every worker.`,
    });
  }
  return { context: resolved, secretValues };
}
