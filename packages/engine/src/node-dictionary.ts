/**
 * Objects keyed by node id, for the engine's bookkeeping and the checkpoint
 * (docs/architecture.md "Checkpoint").
 */

/**
 * An empty object without a prototype, to be keyed by node ids. Node ids are user text: with a plain `{}`, a node
 * named `constructor` or `toString` would read `Object.prototype`'s function as its visit count, and `__proto__`
 * would not be stored at all. It is also faster: V8 keeps a prototype-less object in dictionary mode, where a plain
 * object built with a new sequence of keys on every node (the checkpoint's sliding window of recent nodes) would
 * get a new hidden class for each key. Serialises with `JSON.stringify` like any object. Internal to the engine.
 */
export function createNodeDictionary<TValue>(): Record<string, TValue> {
  return Object.create(null) as Record<string, TValue>;
}
