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
 * `context.<path>` looks up `context.<path>` in the context, then `<path>`; any other key is looked up
 * as written. Missing values (`undefined`, `null`) are `""`. Strings are returned as they are,
 * objects and arrays as `JSON.stringify` (bigints inside as digits), numbers, booleans and bigints as `String(value)`.
 */
export function resolveConditionKey(key: string, input: ConditionInput): string {
  if (key === 'outcome') return input.outcome;
  if (key === 'preferred_label') return input.preferredLabel ?? '';
  const direct = stringify(input.context.get(key));
  if (direct !== undefined) return direct;
  if (key.startsWith(CONTEXT_PREFIX)) {
    return stringify(input.context.get(key.slice(CONTEXT_PREFIX.length))) ?? '';
  }
  return '';
}
