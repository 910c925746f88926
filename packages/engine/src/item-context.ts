/**
 * The items a `foreach` binds (README "Typed data"): each item of its list is the context key `item.<as>` in the
 * item's own context, what `$item.<as>` expands to in prompts and tool commands.
 */
import type { JsonValue } from './json-value.js';
import { valuesUnderPrefix } from './pipeline-inputs.js';

/** The context namespace of foreach items: `item.file` holds the item bound by `as="file"`. */
export const ITEM_CONTEXT_PREFIX = 'item.';

/**
 * The items bound by the `foreach` nodes a stage runs inside (`item.<name>` context keys), by name: what
 * `$item.<name>` expands to. Empty outside a foreach body.
 */
export function itemsOfContext(values: Readonly<Record<string, JsonValue>>): Record<string, JsonValue> {
  return valuesUnderPrefix(values, ITEM_CONTEXT_PREFIX);
}
