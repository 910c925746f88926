import { describe, expect, it } from 'vitest';
import { Context } from './context.js';
import { ContextValueError } from './errors/context-value-error.js';
import type { JsonValue } from './json-value.js';

describe('Context (spec §5.1)', () => {
  it('stores and returns values, with a default for missing keys', () => {
    const context = new Context();
    context.set('context.plan', ['a', 'b']);
    expect(context.get('context.plan')).toEqual(['a', 'b']);
    expect(context.get('missing')).toBeUndefined();
    expect(context.get('missing', 'fallback')).toBe('fallback');
  });

  it('getString returns strings as they are, other values as JSON, and a default when missing', () => {
    const context = new Context({ text: 'hi', count: 3, flag: true, list: [1], nothing: null });
    expect(context.getString('text')).toBe('hi');
    expect(context.getString('count')).toBe('3');
    expect(context.getString('flag')).toBe('true');
    expect(context.getString('list')).toBe('[1]');
    expect(context.getString('nothing', 'd')).toBe('d');
    expect(context.getString('missing')).toBe('');
  });

  it('snapshot is a deep copy', () => {
    const context = new Context({ nested: { a: 1 } });
    const snapshot = context.snapshot();
    (snapshot.nested as Record<string, JsonValue>).a = 2;
    expect(context.get('nested')).toEqual({ a: 1 });
  });

  it('clone isolates values and logs from the original', () => {
    const context = new Context({ shared: { n: 1 } });
    context.appendLog('first');
    const clone = context.clone();
    clone.set('shared', { n: 2 });
    clone.appendLog('second');
    expect(context.get('shared')).toEqual({ n: 1 });
    expect(context.logs()).toEqual(['first']);
    expect(clone.logs()).toEqual(['first', 'second']);
  });

  it('applyUpdates merges several keys', () => {
    const context = new Context({ a: 1 });
    context.applyUpdates({ b: 2, a: 3 });
    expect(context.snapshot()).toEqual({ a: 3, b: 2 });
  });

  it.each([
    ['a function', () => 1],
    ['undefined', undefined],
    ['NaN', Number.NaN],
    ['a Date', new Date(0)],
    ['a Map', new Map()],
    ['a bigint', 10n],
  ])('rejects %s with a ContextValueError naming the key', (_name, value) => {
    const context = new Context();
    let caught: unknown;
    try {
      context.set('bad.key', value as unknown as JsonValue);
    } catch (error) {
      caught = error;
    }
    expect(ContextValueError.isInstance(caught)).toBe(true);
    expect((caught as ContextValueError).key).toBe('bad.key');
    expect((caught as Error).message).toContain('"bad.key"');
    expect(context.has('bad.key')).toBe(false);
  });

  it('rejects a cycle', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => new Context().set('c', cyclic as JsonValue)).toThrow(/circular/);
  });

  it('applyUpdates stores nothing when one value is not JSON', () => {
    const context = new Context();
    expect(() => context.applyUpdates({ good: 1, bad: (() => 1) as unknown as JsonValue })).toThrow(
      ContextValueError,
    );
    expect(context.has('good')).toBe(false);
  });

  it('diff reports added and changed keys', () => {
    const context = new Context({ same: 1, changed: 1 });
    const base = context.snapshot();
    context.set('changed', 2);
    context.set('added', 'x');
    expect(context.diff(base)).toEqual({ changed: 2, added: 'x' });
  });
});
