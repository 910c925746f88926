/**
 * How a `foreach` node runs its items and what it does when one fails (README "Typed data"): the values of its
 * `mode` and `on_item_error` attributes.
 */

/** `parallel` (the default): up to `max_parallel` items at once; `serial`: one after another, in list order. */
export type ForeachMode = 'parallel' | 'serial';

/** The values of `mode`, the default first. */
export const FOREACH_MODES = ['parallel', 'serial'] as const satisfies readonly ForeachMode[];

/**
 * `fail` (the default): no further item starts and the node fails; `collect`: the failure is recorded in the collect
 * list and the run goes on; `skip`: the failed item is left out.
 */
export type ItemErrorPolicy = 'fail' | 'collect' | 'skip';

/** The values of `on_item_error`, the default first. */
export const ITEM_ERROR_POLICIES = ['fail', 'collect', 'skip'] as const satisfies readonly ItemErrorPolicy[];
