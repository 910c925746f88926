import * as ohm from 'ohm-js';
import { describe, expect, it } from 'vitest';
import { dotGrammarRecipe } from './dot-grammar-recipe.js';
import { dotGrammarSource } from './dot-grammar-source.js';

describe('dot-grammar-recipe.ts', () => {
  it('is the recipe of the current grammar text (run `pnpm --filter @attractor/dot generate` after editing the grammar)', () => {
    // `toRecipe` exists at runtime but is missing from ohm-js's type declarations.
    const compiled = ohm.grammar(dotGrammarSource) as ohm.Grammar & { toRecipe(): string };
    expect(compiled.toRecipe()).toBe(dotGrammarRecipe);
  });
});
