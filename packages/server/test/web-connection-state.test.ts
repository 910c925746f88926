/**
 * The web UI's connection state (web/src/connection-state.ts): the page's state is the worst of its streams', a
 * removed stream no longer counts, and pages hear "restored" only when every stream is live again after a loss.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connection, isLost, type StreamEntry } from '../web/src/connection-state.js';

const entries: StreamEntry[] = [];
afterEach(() => {
  for (const entry of entries.splice(0)) entry.remove();
});

function add(): StreamEntry {
  const entry = connection.add();
  entries.push(entry);
  return entry;
}

describe('web UI connection state', () => {
  it('is the worst state of the open streams, and nothing without one', () => {
    expect(connection.snapshot.state).toBeUndefined();
    const runs = add();
    expect(connection.snapshot.state).toBe('connecting');
    const run = add();
    runs.set('live');
    run.set('live');
    expect(connection.snapshot.state).toBe('live');
    run.set('reconnecting');
    expect(connection.snapshot.state).toBe('reconnecting');
    runs.set('offline');
    expect(connection.snapshot.state).toBe('offline');
    runs.remove();
    expect(connection.snapshot.state).toBe('reconnecting');
    run.remove();
    expect(connection.snapshot.state).toBeUndefined();
    // A removed stream's late report changes nothing.
    run.set('offline');
    expect(connection.snapshot.state).toBeUndefined();
  });

  it('tells "restored" once every stream is live again after a loss, not on the first connection', () => {
    let restored = 0;
    const stop = connection.onRestored(() => restored++);
    try {
      const runs = add();
      const run = add();
      runs.set('live');
      run.set('live');
      expect(restored).toBe(0);
      runs.set('reconnecting');
      run.set('offline');
      runs.set('live');
      expect(restored).toBe(0);
      run.set('live');
      expect(restored).toBe(1);
    } finally {
      stop();
    }
  });

  it('remembers when the last message came, and says which states mean the connection was lost', () => {
    const before = Date.now();
    add().heard();
    expect(connection.snapshot.lastEventAt).toBeGreaterThanOrEqual(before);
    expect(
      ['connecting', 'live', 'reconnecting', 'offline', undefined].map((state) => isLost(state as never)),
    ).toEqual([false, false, true, true, false]);
  });
});
