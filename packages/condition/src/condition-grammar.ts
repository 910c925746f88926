import * as ohm from 'ohm-js';
import { conditionGrammarRecipe } from './condition-grammar-recipe.js';

/**
 * The Ohm grammar of the condition language, spec §10.2, compiled once at module load, with the operators of §10.7
 * that other runners' pipelines use (issue 19).
 *
 * Precedence, loosest first: `||`, then `&&`, then `!` (prefix, on a clause or a parenthesised group), then a clause
 * `key operator literal`. `a || b && !c` reads `a || (b && (!c))`. Parentheses group. Operators of a clause:
 * `=`, `!=` (spec §10.2), `<`, `>`, `<=`, `>=`, `contains`, `!contains` and `matches` (extensions, named in the AST
 * so that `--strict` can refuse them). Word operators need a space or a quote after them (`x contains "a b"`).
 *
 * Syntactic rules (capitalised) skip whitespace between tokens; lexical rules (lowercase) do not, so a
 * key, an operator or a literal is never split by spaces. Every rule a user can fail on has a
 * description so that failures read "expected a value", not a list of characters.
 *
 * Deviations from the spec's EBNF, both from §10.4: a key may be unqualified (`tool.output`), and a
 * clause may be a bare key (truthiness, §10.5). Blank text is an empty condition (always true).
 */
export const conditionGrammarSource = String.raw`
Condition {
  Condition
    = Or   -- expression
    | end  -- empty

  Or
    = NonemptyListOf<And, orOperator>

  And
    = NonemptyListOf<Unary, "&&">

  Unary
    = notOperator Unary  -- not
    | Primary

  Primary
    = "(" Or ")"  -- group
    | Clause

  Clause
    = key operator literal  -- comparison
    | key                   -- truthy

  orOperator
    = "||"

  notOperator
    = "!" ~("=" | "contains")

  key (a key such as outcome, preferred_label or context.name)
    = identifier ("." identifier)*

  identifier
    = identifierStart identifierPart*

  identifierStart
    = asciiLetter | "_"

  identifierPart
    = asciiLetter | digit | "_"

  asciiLetter
    = "a".."z" | "A".."Z"

  operator (an operator such as "=", "!=", "<" or contains)
    = "!="                           -- notEqual
    | "<="                           -- lessOrEqual
    | ">="                           -- greaterOrEqual
    | "<"                            -- less
    | ">"                            -- greater
    | "="                            -- equal
    | "!contains" ~identifierPart    -- notContains
    | "contains" ~identifierPart     -- contains
    | "matches" ~identifierPart      -- matches

  literal (a value)
    = string       -- string
    | number       -- number
    | bareLiteral  -- bare

  number
    = "-"? digit+ ("." digit+)? ~bareChar

  bareLiteral
    = identifierStart bareChar*

  bareChar
    = asciiLetter | digit | "_" | "." | ":" | "-"

  string
    = "\"" stringChar* "\""

  stringChar
    = ~("\"" | "\\") any  -- plain
    | "\\" escapeCode     -- escape

  escapeCode (an escape: \", \\, \n, \r or \t)
    = "\"" | "\\" | "n" | "r" | "t"
}
`;

/** `makeRecipe` is exported by ohm-js 17 at runtime but missing from its type declarations. */
const { makeRecipe } = ohm as unknown as { makeRecipe(recipe: string): ohm.Grammar };

/** The compiled condition grammar. Internal: no Ohm type crosses the package boundary. */
// Built from the recipe generated at development time (tools/generate-grammar-recipe.mjs): ~2 ms, where compiling
// the grammar text costs 0.3-1.7 s of CPU in a cold process, paid by every CLI command.
export const conditionGrammar: ohm.Grammar = makeRecipe(conditionGrammarRecipe);
