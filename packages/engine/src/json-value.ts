/**
 * JSON values: the only values the run context, outcomes and checkpoints hold
 * (docs/architecture.md "Context values").
 */

/** A JSON primitive. `number` excludes `NaN` and the infinities, which JSON cannot represent. */
export type JsonPrimitive = string | number | boolean | null;

/** Any value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue = JsonPrimitive | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { readonly [key: string]: JsonValue };

/**
 * Finds the first part of `value` that is not JSON, or returns undefined when all of it is.
 *
 * Rejects `undefined`, functions, symbols, bigints, non-finite numbers, class instances other than plain
 * objects and arrays (a `Date`, `Map`, ...), and cycles. The returned string names the path, e.g.
 * `$.items[2]: a function`.
 */
export function findNonJson(value: unknown, path = '$', seen: Set<object> = new Set()): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path}: ${String(value)} is not a finite number`;
    case 'undefined':
      return `${path}: undefined`;
    case 'function':
      return `${path}: a function`;
    case 'symbol':
      return `${path}: a symbol`;
    case 'bigint':
      return `${path}: a bigint`;
  }
  if (value === null) return undefined;
  const object = value as object;
  if (seen.has(object)) return `${path}: a circular reference`;
  if (Array.isArray(object)) {
    seen.add(object);
    for (let index = 0; index < object.length; index++) {
      const problem = findNonJson(object[index], `${path}[${index}]`, seen);
      if (problem !== undefined) return problem;
    }
    seen.delete(object);
    return undefined;
  }
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    return `${path}: an instance of ${(object.constructor as { name?: string } | undefined)?.name ?? 'a class'}`;
  }
  seen.add(object);
  for (const [key, item] of Object.entries(object)) {
    const problem = findNonJson(item, `${path}.${key}`, seen);
    if (problem !== undefined) return problem;
  }
  seen.delete(object);
  return undefined;
}

/** A deep copy of a JSON value (structured clone restricted to JSON). */
export function cloneJson<TValue extends JsonValue>(value: TValue): TValue {
  if (value === null || typeof value !== 'object') return value;
  return structuredClone(value);
}
