import * as ohm from 'ohm-js';
import { stylesheetGrammarRecipe } from './stylesheet-grammar-recipe.js';

/**
 * The Ohm grammar of the model stylesheet, spec §8.2, compiled once at module load.
 *
 * Syntactic rules (capitalised) skip whitespace and comments (`/* ... *\/` and `// ...` to the end of
 * the line) between tokens. Deviations from the spec's EBNF: any property name parses (unknown ones
 * become diagnostics, not syntax errors), class names may also contain upper-case letters and `_`,
 * values may be bare (`claude-opus-4-6`, `openai/gpt-5:free`) or quoted with `"` or `'`, a rule may
 * be empty, and an empty stylesheet has no rules. `*` may appear in `#id` and `.class` selectors (a glob: `#review_*`)
 * and in bare values, with `?` and `[...]` (`claude-sonnet-*`, `gpt-[5-9]*`: a model glob that the parser reports
 * and does not apply), as Amplifier writes them.
 */
export const stylesheetGrammarSource = String.raw`
Stylesheet {
  Stylesheet
    = Rule*

  Rule
    = selector "{" Declarations "}"

  Declarations
    = ListOf<Declaration, ";"> ";"?

  Declaration
    = property ":" value

  selector (a selector: *, a shape name, #id or .class)
    = "*"             -- universal
    | "#" nodeId      -- id
    | "." className   -- class
    | shapeName       -- shape

  nodeId (a node id)
    = (asciiLetter | digit | "_" | "*")+

  className (a class name)
    = (asciiLetter | digit | "-" | "_" | "*")+

  shapeName
    = identifier

  identifier
    = (asciiLetter | "_") (asciiLetter | digit | "_")*

  asciiLetter
    = "a".."z" | "A".."Z"

  property (a property name)
    = (asciiLetter | "_") (asciiLetter | digit | "_" | "-")*

  value (a value)
    = string     -- quoted
    | bareValue  -- bare

  bareValue
    = bareChar+

  bareChar
    = ~("//" | "/*") (asciiLetter | digit | "_" | "." | "-" | ":" | "/" | "@" | "+" | "*" | "?" | "[" | "]")

  string
    = "\"" (~("\"" | "\\") any | escape)* "\""  -- double
    | "'" (~("'" | "\\") any | escape)* "'"     -- single

  escape
    = "\\" any

  space
    += comment

  comment
    = "/*" (~"*/" any)* "*/"  -- block
    | "//" (~"\n" any)*       -- line
}
`;

/** `makeRecipe` is exported by ohm-js 17 at runtime but missing from its type declarations. */
const { makeRecipe } = ohm as unknown as { makeRecipe(recipe: string): ohm.Grammar };

/** The compiled stylesheet grammar. Internal: no Ohm type crosses the package boundary. */
// Built from the recipe generated at development time (tools/generate-grammar-recipe.mjs): ~2 ms, where compiling
// the grammar text costs 0.3-1.7 s of CPU in a cold process, paid by every CLI command.
export const stylesheetGrammar: ohm.Grammar = makeRecipe(stylesheetGrammarRecipe);
