import { describe, expect, it } from 'vitest';
import { detectToolLoop } from './detect-tool-loop.js';

describe('detectToolLoop (coding-agent-loop-spec §2.10)', () => {
  it('detects one call repeated across the window', () => {
    expect(detectToolLoop(Array(10).fill('glob:*'))).toBe(true);
  });

  it('detects a repeating pair, looking only at the last window of calls', () => {
    const cycle = ['read:a', 'edit:a'];
    expect(detectToolLoop(['write:x', ...Array(5).fill(cycle).flat()])).toBe(true);
  });

  it('ignores short histories and varied calls', () => {
    expect(detectToolLoop(Array(9).fill('glob:*'))).toBe(false);
    expect(detectToolLoop(Array.from({ length: 10 }, (_, index) => `read:${index}`))).toBe(false);
  });

  it('skips pattern lengths that do not divide the window', () => {
    const triple = ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c', 'a'];
    expect(detectToolLoop(triple)).toBe(false);
    expect(detectToolLoop(triple.slice(0, 9), 9)).toBe(true);
  });
});
