import { describe, expect, it } from 'vitest';
import { createSessionStore } from './session-store.js';

describe('createSessionStore (spec §5.4 full fidelity)', () => {
  it('keeps threads of different runs apart', () => {
    const store = createSessionStore<string>();
    store.set('run-1', 'main', 'first run');
    expect(store.get('run-2', 'main')).toBeUndefined();
    expect(store.get('run-1', 'main')).toBe('first run');
  });

  it('keeps the sessions of the most recent runs only', () => {
    const store = createSessionStore<number>(2);
    store.set('a', 't', 1);
    store.set('b', 't', 2);
    store.set('a', 'u', 3);
    store.set('c', 't', 4);
    expect(store.runs()).toEqual(['a', 'c']);
    expect(store.get('b', 't')).toBeUndefined();
  });
});
