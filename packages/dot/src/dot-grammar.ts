/** The compiled DOT grammar, built once when the module loads (CONTRIBUTING.md "Grammars"). */
import * as ohm from 'ohm-js';
import { dotGrammarRecipe } from './dot-grammar-recipe.js';

/** `makeRecipe` is exported by ohm-js 17 at runtime but missing from its type declarations. */
const { makeRecipe } = ohm as unknown as { makeRecipe(recipe: string): ohm.Grammar };

/** The Ohm grammar of `dot.ohm`. Start rules used: `Header`, `Statements`, `Graph`. */
// Built from the recipe generated at development time (tools/generate-grammar-recipe.mjs): ~2 ms, where compiling
// the grammar text costs 0.3-1.7 s of CPU in a cold process, paid by every CLI command.
export const dotGrammar: ohm.Grammar = makeRecipe(dotGrammarRecipe);
