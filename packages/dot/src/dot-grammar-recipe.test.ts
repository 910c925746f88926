import * as ohm from 'ohm-js';
import { describe, expect, it } from 'vitest';
import { dotGrammarRecipe } from './dot-grammar-recipe.js';
import { dotGrammarSource } from './dot-grammar-source.js';

describe('dot-grammar-recipe.ts', () => {
  it('is the recipe of the current grammar text (run `pnpm --filter @attractor/dot generate` after editing the grammar)', () => {
    expect(ohm.grammar(dotGrammarSource).toRecipe()).toBe(dotGrammarRecipe);
  });
});
