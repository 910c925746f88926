import * as ohm from 'ohm-js';
import { describe, expect, it } from 'vitest';
import { stylesheetGrammarSource } from './stylesheet-grammar.js';
import { stylesheetGrammarRecipe } from './stylesheet-grammar-recipe.js';

describe('stylesheet-grammar-recipe.ts', () => {
  it('is the recipe of the current grammar text (run `pnpm --filter @attractor/stylesheet generate` after editing the grammar)', () => {
    expect(ohm.grammar(stylesheetGrammarSource).toRecipe()).toBe(stylesheetGrammarRecipe);
  });
});
