import * as ohm from 'ohm-js';
import { describe, expect, it } from 'vitest';
import { stylesheetGrammarSource } from './stylesheet-grammar.js';
import { stylesheetGrammarRecipe } from './stylesheet-grammar-recipe.js';

describe('stylesheet-grammar-recipe.ts', () => {
  it('is the recipe of the current grammar text (run `pnpm --filter @attractor/stylesheet generate` after editing the grammar)', () => {
    // `toRecipe` exists at runtime but is missing from ohm-js's type declarations.
    const compiled = ohm.grammar(stylesheetGrammarSource) as ohm.Grammar & { toRecipe(): string };
    expect(compiled.toRecipe()).toBe(stylesheetGrammarRecipe);
  });
});
