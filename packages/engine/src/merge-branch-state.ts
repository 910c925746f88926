/**
 * The join of parallel branches over declared state (README "Typed data"): pure, part of the engine's decision core.
 * Each branch wrote into its own copy of the context; at the join, a declared field merges the branches' writes by
 * its rule in branch order, and an undeclared key that two branches wrote differently is a conflict, never one branch
 * silently winning.
 */
import type { StateMergeRule } from '@attractor/graph';
import type { JsonValue } from './json-value.js';

/** One branch's writes: its id and the context keys it changed, with their final values. */
export interface BranchWrites {
  readonly branch: string;
  readonly updates: Readonly<Record<string, JsonValue>>;
}

/** Options of {@link mergeBranchState}. */
export interface MergeBranchStateOptions {
  /** The declared fields and their rules (`graph.settings.state`). */
  readonly rules: Readonly<Record<string, StateMergeRule>>;
  /** The context before the branches forked (the join's context): what `append` and `merge_object` start from. */
  readonly base: Readonly<Record<string, JsonValue>>;
  /** The branches whose writes merge, in branch order (the parallel node's edge order). */
  readonly branches: readonly BranchWrites[];
}

/** What {@link mergeBranchState} returns. */
export type MergeBranchStateResult =
  | { readonly ok: true; readonly updates: Record<string, JsonValue> }
  | {
      readonly ok: false;
      /** The undeclared key two or more branches wrote with different values. */
      readonly key: string;
      /** The branches that wrote it, in branch order. */
      readonly branches: readonly string[];
    };

/**
 * Keys every stage writes as bookkeeping (`last_stage`, `last_response`, `tool.*`, `usage.*`, a foreach's `item.*`
 * and `foreach.*`, ...): merged by
 * branch order (the last branch's value) without a conflict, declared or not.
 */
export function isBookkeepingKey(key: string): boolean {
  return (
    key === 'last_stage' ||
    key === 'last_response' ||
    key === 'tool_stdout' ||
    key === 'tool_stderr' ||
    /^(tool|usage|human|stack|graph|input|item|foreach|parallel|internal)\./.test(key)
  );
}

/**
 * Merges the branches' writes:
 * - `replace`: the last branch (in branch order) that wrote the field wins;
 * - `append`: the base list, then what each branch appended, in branch order (a branch's list that starts with the
 *   base list adds the items after it; another list adds all its items; any other value is one item);
 * - `merge_object`: the base object with each branch's object merged over it, key by key, in branch order;
 * - an undeclared key written by one branch, or by several with equal values, is taken; written by several with
 *   different values, it is a conflict naming the key and the branches ({@link isBookkeepingKey} keys excepted).
 */
export function mergeBranchState(options: MergeBranchStateOptions): MergeBranchStateResult {
  const updates: Record<string, JsonValue> = {};
  const writers = new Map<string, string[]>();
  for (const { branch, updates: written } of options.branches) {
    for (const key of Object.keys(written)) writers.set(key, [...(writers.get(key) ?? []), branch]);
  }
  for (const [key, branches] of writers) {
    const values = options.branches
      .filter((entry) => Object.hasOwn(entry.updates, key))
      .map((entry) => entry.updates[key]!);
    const rule = options.rules[key];
    if (rule === 'append') {
      updates[key] = appended(options.base[key], values);
    } else if (rule === 'merge_object') {
      updates[key] = mergedObject(options.base[key], values);
    } else if (rule === 'replace' || isBookkeepingKey(key)) {
      updates[key] = values.at(-1)!;
    } else {
      const first = JSON.stringify(values[0]);
      if (values.some((value) => JSON.stringify(value) !== first)) return { ok: false, key, branches };
      updates[key] = values[0]!;
    }
  }
  return { ok: true, updates };
}

function appended(base: JsonValue | undefined, values: readonly JsonValue[]): JsonValue[] {
  const start = Array.isArray(base) ? base : base === undefined || base === null ? [] : [base];
  const result = [...start];
  const prefix = JSON.stringify(start);
  for (const value of values) {
    if (!Array.isArray(value)) result.push(value);
    else if (JSON.stringify(value.slice(0, start.length)) === prefix)
      result.push(...value.slice(start.length));
    else result.push(...value);
  }
  return result;
}

function mergedObject(base: JsonValue | undefined, values: readonly JsonValue[]): JsonValue {
  let result: JsonValue | undefined = base;
  for (const value of values) {
    const isObject = (item: JsonValue | undefined): item is Record<string, JsonValue> =>
      item !== null && item !== undefined && typeof item === 'object' && !Array.isArray(item);
    result = isObject(result) && isObject(value) ? { ...result, ...value } : value;
  }
  return result ?? null;
}
