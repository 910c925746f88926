import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dotGrammarSource } from './dot-grammar-source.js';

describe('dot-grammar-source.ts', () => {
  it('is up to date with dot.ohm (run `pnpm --filter @attractor/dot generate` after editing the grammar)', () => {
    const grammar = readFileSync(new URL('./dot.ohm', import.meta.url), 'utf8');
    expect(dotGrammarSource).toBe(grammar);
  });
});
