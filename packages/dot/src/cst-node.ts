/**
 * A node of Ohm's concrete syntax tree, as `getCstRoot` of `ohm-js/v18` gives it (see ohm-js-v18.d.ts). Declared here,
 * in a module of the package, so that the published declarations that mention it (`DotParseCache`'s implementation,
 * the tree readers) do not import `ohm-js/v18`, which ships no types of its own.
 *
 * `ctorName` is the rule name for a rule application (a case `-- name` is its own rule, `Rule_name`), else
 * `_terminal`, `_list` (`*`, `+`), `_opt` (`?`) or `_seq` (one row of an iterated sequence). `source` offsets are into
 * the matched text.
 */
export interface CstNode {
  readonly ctorName: string;
  readonly children: readonly CstNode[];
  readonly source: { readonly startIdx: number; readonly endIdx: number };
  readonly sourceString: string;
  readonly matchLength: number;
  isNonterminal(): boolean;
  isTerminal(): boolean;
  isList(): boolean;
  isOptional(): boolean;
  isSeq(): boolean;
}
