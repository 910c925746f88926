/** The compiled DOT grammar and its AST semantics, built once when the module loads (STYLE.md §9). */
import * as ohm from 'ohm-js';
import { dotGrammarSource } from './dot-grammar-source.js';

/** The Ohm grammar of `dot.ohm`. Start rules used: `Header`, `Statements`, `Graph`. */
export const dotGrammar: ohm.Grammar = ohm.grammar(dotGrammarSource);
