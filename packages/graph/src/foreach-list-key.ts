/**
 * The list a `foreach` node goes over (README "Typed data"): its `over` attribute names a context key.
 */

/** The prefixes `over` may write before the context key: `state.files` and `context.files` both read `files`. */
const KEY_PREFIXES = ['state.', 'context.'];

/**
 * The context key a foreach's `over` names: `state.files` and `context.files` read `files` (the way conditions read
 * keys); `input.files` and `files` are keys as written. Pure.
 */
export function foreachListKey(over: string): string {
  const trimmed = over.trim();
  const prefix = KEY_PREFIXES.find((candidate) => trimmed.startsWith(candidate));
  return prefix === undefined ? trimmed : trimmed.slice(prefix.length);
}
