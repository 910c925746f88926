/**
 * Types for `ohm-js/v18`, the forward-compatibility entry of ohm-js 17.5 that gives a v17 match the
 * CST API of Ohm 18 (`getCstRoot`). The package ships this entry without type declarations; only
 * what `to-dot-ast.ts` uses is declared.
 */
declare module 'ohm-js/v18' {
  import type { MatchResult } from 'ohm-js';

  /**
   * A node of the concrete syntax tree. `ctorName` is the rule name for a rule application (a case
   * `-- name` is its own rule, `Rule_name`), else `_terminal`, `_list` (`*`, `+`), `_opt` (`?`) or
   * `_seq` (one row of an iterated sequence). `source` offsets are into the matched text.
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

  /** The root of the CST of a successful match; throws for a failed one. */
  export function getCstRoot(match: MatchResult): CstNode;
}
