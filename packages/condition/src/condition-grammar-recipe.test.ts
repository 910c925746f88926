import * as ohm from 'ohm-js';
import { describe, expect, it } from 'vitest';
import { conditionGrammarSource } from './condition-grammar.js';
import { conditionGrammarRecipe } from './condition-grammar-recipe.js';

describe('condition-grammar-recipe.ts', () => {
  it('is the recipe of the current grammar text (run `pnpm --filter @attractor/condition generate` after editing the grammar)', () => {
    // `toRecipe` exists at runtime but is missing from ohm-js's type declarations.
    const compiled = ohm.grammar(conditionGrammarSource) as ohm.Grammar & { toRecipe(): string };
    expect(compiled.toRecipe()).toBe(conditionGrammarRecipe);
  });
});
