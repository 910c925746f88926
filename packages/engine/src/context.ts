/**
 * The run context of spec §5.1: a key-value store of JSON values shared by the stages of a run, plus an
 * append-only run log.
 */
import { ContextValueError } from './errors/context-value-error.js';
import { cloneJson, findNonJson, type JsonValue } from './json-value.js';

/**
 * The key-value store handlers read and the engine updates between stages (spec §5.1).
 *
 * Values must be JSON (docs/architecture.md "Context values"); `set` and `applyUpdates` reject anything else
 * with a {@link ContextValueError}. Reads return the stored value itself (treat it as read-only);
 * `snapshot()` and `clone()` deep-copy. JavaScript runs one stage's synchronous code at a time, so no lock is
 * needed; parallel branches each get their own `clone()` (spec §3.8).
 *
 * Built-in keys set by the engine: `outcome`, `preferred_label`, `current_node`, `last_stage`,
 * `internal.retry_count.<node_id>`, and `graph.*` mirrored from the graph attributes.
 *
 * @example
 * const context = new Context({ 'graph.goal': 'ship it' });
 * context.set('context.plan', ['a', 'b']);
 * context.getString('graph.goal'); // 'ship it'
 */
export class Context {
  readonly #values = new Map<string, JsonValue>();
  readonly #logs: string[] = [];

  /**
   * @param values - initial values (validated like `applyUpdates`).
   * @param logs - initial run log entries.
   * @throws {ContextValueError} when an initial value is not JSON.
   */
  constructor(values: Readonly<Record<string, JsonValue>> = {}, logs: readonly string[] = []) {
    this.applyUpdates(values);
    this.#logs.push(...logs);
  }

  /**
   * Stores a value under a key, replacing any previous one. The value is deep-copied.
   * @throws {ContextValueError} when the value is not JSON.
   */
  set(key: string, value: JsonValue): void {
    const problem = findNonJson(value);
    if (problem !== undefined) throw new ContextValueError({ key, problem });
    this.#values.set(key, cloneJson(value));
  }

  /** The value stored under `key`, or `defaultValue` (default: undefined) when there is none. */
  get(key: string): JsonValue | undefined;
  get<TDefault extends JsonValue>(key: string, defaultValue: TDefault): JsonValue;
  get(key: string, defaultValue?: JsonValue): JsonValue | undefined {
    return this.#values.has(key) ? this.#values.get(key) : defaultValue;
  }

  /**
   * The value under `key` as a string (spec §5.1 `get_string`): strings as they are, other values as JSON text,
   * `defaultValue` (default: `''`) when the key is missing or null.
   */
  getString(key: string, defaultValue = ''): string {
    const value = this.#values.get(key);
    if (value === undefined || value === null) return defaultValue;
    return typeof value === 'string' ? value : JSON.stringify(value);
  }

  /** Whether a value is stored under `key`. */
  has(key: string): boolean {
    return this.#values.has(key);
  }

  /** Removes a key. Returns whether it was present. */
  delete(key: string): boolean {
    return this.#values.delete(key);
  }

  /** All keys, in insertion order. */
  keys(): string[] {
    return [...this.#values.keys()];
  }

  /**
   * Merges several values at once (spec §5.1 `apply_updates`). Either every value is stored or, when one is not
   * JSON, none is.
   * @throws {ContextValueError} naming the first key whose value is not JSON.
   */
  applyUpdates(updates: Readonly<Record<string, JsonValue>>): void {
    for (const [key, value] of Object.entries(updates)) {
      const problem = findNonJson(value);
      if (problem !== undefined) throw new ContextValueError({ key, problem });
    }
    for (const [key, value] of Object.entries(updates)) this.#values.set(key, cloneJson(value));
  }

  /** A deep copy of all values as a plain object (spec §5.1 `snapshot`), suitable for JSON serialisation. */
  snapshot(): Record<string, JsonValue> {
    const result: Record<string, JsonValue> = {};
    for (const [key, value] of this.#values) result[key] = cloneJson(value);
    return result;
  }

  /** An independent deep copy of values and logs (spec §5.1 `clone`), used for parallel branch isolation. */
  clone(): Context {
    return new Context(this.snapshot(), this.#logs);
  }

  /** Appends an entry to the run log (spec §5.1 `append_log`). */
  appendLog(entry: string): void {
    this.#logs.push(entry);
  }

  /** The run log, oldest first (a copy). */
  logs(): string[] {
    return [...this.#logs];
  }

  /**
   * The keys whose values differ from `base` (added or changed), with their current values: the "context
   * delta" of a parallel branch. Removed keys are not reported.
   */
  diff(base: Readonly<Record<string, JsonValue>>): Record<string, JsonValue> {
    const delta: Record<string, JsonValue> = {};
    for (const [key, value] of this.#values) {
      if (!(key in base) || JSON.stringify(base[key]) !== JSON.stringify(value))
        delta[key] = cloneJson(value);
    }
    return delta;
  }
}
