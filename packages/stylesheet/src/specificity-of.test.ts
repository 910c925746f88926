import { describe, expect, it } from 'vitest';
import { specificityOf } from './specificity-of.js';

describe('specificityOf (spec §8.3)', () => {
  const table = [
    ['universal', 0],
    ['shape', 1],
    ['class', 2],
    ['id', 3],
  ] as const;
  it.each(table)('gives a %s selector specificity %i', (kind, specificity) => {
    expect(specificityOf({ kind })).toBe(specificity);
  });
});
