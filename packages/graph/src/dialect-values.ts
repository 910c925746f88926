/**
 * Attribute values written the way other runners write them, and what they mean here
 * (docs/architecture.md "Dialect", issue 19). `buildGraph` stores the canonical value with `writtenValue`
 * keeping the original; lint `dialect_alias` warns (an error with `--strict`).
 */

/** A value conversion: the canonical value, or undefined when the written value is not this dialect's form. */
type ValueConversion = (written: string) => string | undefined;

/**
 * Values converted because of the alias key they were written under: Amplifier's `wait_ms=500` is
 * `manager.poll_interval=500ms`, and its `stop_condition_key=done` is `manager.stop_condition=context.done` (the
 * loop stops once the child sets that key).
 */
export const DIALECT_VALUE_CONVERSIONS: Readonly<Record<string, ValueConversion>> = {
  wait_ms: (written) => (/^\d+$/.test(written.trim()) ? `${written.trim()}ms` : undefined),
  stop_condition_key: (written) => {
    const key = written.trim();
    if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(key)) return undefined;
    return key.startsWith('context.') ? key : `context.${key}`;
  },
};

/**
 * Values of canonical keys converted whatever the key was written as: streamweave's `type="exec"` is the tool
 * handler; `weight="2.0"` is the integer weight 2; `goal_gate="outcome = success"` (a gate written as the condition
 * it checks) is `goal_gate=true`.
 */
export const DIALECT_VALUES: Readonly<Record<string, ValueConversion>> = {
  type: (written) => (written === 'exec' ? 'tool' : undefined),
  weight: (written) => {
    const match = /^\s*(-?\d+)\.0+\s*$/.exec(written);
    return match === null ? undefined : String(Number(match[1]));
  },
  goal_gate: (written) => (/^\s*outcome\s*=\s*"?success"?\s*$/.test(written) ? 'true' : undefined),
};

/**
 * The canonical value of an attribute written as `writtenKey` (stored under `key`) with value `value`, or undefined
 * when the value is already canonical.
 */
export function dialectValue(options: {
  readonly key: string;
  readonly writtenKey: string | undefined;
  readonly value: string;
}): string | undefined {
  const { key, writtenKey, value } = options;
  if (writtenKey !== undefined && Object.hasOwn(DIALECT_VALUE_CONVERSIONS, writtenKey)) {
    return DIALECT_VALUE_CONVERSIONS[writtenKey]!(value);
  }
  if (Object.hasOwn(DIALECT_VALUES, key)) return DIALECT_VALUES[key]!(value);
  return undefined;
}
