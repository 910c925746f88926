/**
 * Read access to the run context, spec §5.1. Structural: the engine's `Context` and a
 * `Map<string, unknown>` both satisfy it. `undefined` and `null` mean "missing".
 */
export interface ConditionContext {
  get(key: string): unknown;
}

/**
 * What a condition is evaluated against, spec §10.3: the executing node's outcome status
 * (`success`, `fail`, ... or a custom outcome word), its preferred label, and the run context.
 */
export interface ConditionInput {
  readonly outcome: string;
  /** The outcome's preferred label. Default: `""`. */
  readonly preferredLabel?: string | undefined;
  readonly context: ConditionContext;
}

const CONTEXT_PREFIX = 'context.';

function stringify(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'object') {
    return JSON.stringify(value, (_key, item: unknown) =>
      typeof item === 'bigint' ? item.toString() : item,
    );
  }
  return String(value);
}

/**
 * Resolves a condition key to the string it compares as, spec §10.4.
 *
 * `outcome` is the outcome status; `preferred_label` the preferred label (`""` when absent);
 * `context.<path>` (and `state.<path>`, README "Typed data") looks up the key as written in the context, then
 * `<path>`, then a field inside a JSON value (`review.verdict` reads the `verdict` field of an object under `review`);
 * any other key is looked up as written, then as a field. Missing values (`undefined`, `null`) are `""`. Strings are returned as they are,
 * objects and arrays as `JSON.stringify` (bigints inside as digits), numbers, booleans and bigints as `String(value)`.
 */
export function resolveConditionKey(key: string, input: ConditionInput): string {
  if (key === 'outcome') return input.outcome;
  if (key === 'preferred_label') return input.preferredLabel ?? '';
  const direct = stringify(input.context.get(key));
  if (direct !== undefined) return direct;
  const prefix = key.startsWith(CONTEXT_PREFIX)
    ? CONTEXT_PREFIX
    : key.startsWith(STATE_PREFIX)
      ? STATE_PREFIX
      : '';
  const path = key.slice(prefix.length);
  if (prefix !== '') {
    const value = stringify(input.context.get(path));
    if (value !== undefined) return value;
  }
  return stringify(fieldOfValue(path, input.context)) ?? '';
}

/** `state.<path>` reads the run's state, the context (README "Typed data"): the same as `context.<path>`. */
const STATE_PREFIX = 'state.';

/**
 * A field inside a JSON value of the context: for `review.verdict`, the `verdict` field of the context value
 * `review` (the longest key that holds an object or a list wins; list items by index, `files.0`).
 */
function fieldOfValue(path: string, context: ConditionContext): unknown {
  const names = path.split('.');
  for (let split = names.length - 1; split >= 1; split -= 1) {
    let value = context.get(names.slice(0, split).join('.'));
    if (value === null || typeof value !== 'object') continue;
    for (const name of names.slice(split)) {
      if (value === null || typeof value !== 'object') return undefined;
      value = (value as Record<string, unknown>)[name];
    }
    return value;
  }
  return undefined;
}
