import * as ohm from 'ohm-js';
import { describe, expect, it } from 'vitest';
import { conditionGrammarSource } from './condition-grammar.js';
import { conditionGrammarRecipe } from './condition-grammar-recipe.js';

describe('condition-grammar-recipe.ts', () => {
  it('is the recipe of the current grammar text (run `pnpm --filter @attractor/condition generate` after editing the grammar)', () => {
    expect(ohm.grammar(conditionGrammarSource).toRecipe()).toBe(conditionGrammarRecipe);
  });
});
