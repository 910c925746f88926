import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AttemptSignal, whenAborted } from './attempt-signal.js';

describe('AttemptSignal (the abort signal of one stage attempt)', () => {
  it('aborts a signal read before the abort, with the reason', () => {
    const attempt = new AttemptSignal();
    const signal = attempt.signal;
    expect(signal.aborted).toBe(false);
    const reason = new Error('timeout after 5s');
    attempt.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(attempt.signal).toBe(signal);
  });

  it('hands out an already aborted signal, with the first reason, when read after the abort', () => {
    const attempt = new AttemptSignal();
    attempt.abort('cancelled by user');
    attempt.abort('stage attempt finished');
    expect(attempt.aborted).toBe(true);
    expect(attempt.signal.aborted).toBe(true);
    expect(attempt.signal.reason).toBe('cancelled by user');
  });
});

describe('whenAborted (attempts waiting for their run to be cancelled)', () => {
  it('calls every waiting callback once, through a single listener on the signal', () => {
    const run = new AbortController();
    const calls: string[] = [];
    const stops = ['plan', 'build', 'test'].map((name) => whenAborted(run.signal, () => calls.push(name)));
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
    stops[1]!();
    run.abort('stop');
    run.abort('again');
    expect(calls).toEqual(['plan', 'test']);
  });

  it('keeps one listener however many attempts come and go', () => {
    const run = new AbortController();
    for (let attempt = 0; attempt < 1000; attempt++) whenAborted(run.signal, () => {})();
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
    let called = 0;
    whenAborted(run.signal, () => called++);
    run.abort();
    expect(called).toBe(1);
  });

  it('calls the callback at once when the signal is already aborted', () => {
    let called = 0;
    const stop = whenAborted(AbortSignal.abort('gone'), () => called++);
    expect(called).toBe(1);
    stop();
    expect(called).toBe(1);
  });
});
