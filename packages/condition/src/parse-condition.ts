import type { ConditionAst } from './condition-ast.js';
import { explainConditionFailure } from './explain-condition-failure.js';
import { matchCondition } from './to-condition-ast.js';

/**
 * Parses a condition expression (spec §10.2) into a {@link ConditionAst} with spans inside `text`.
 *
 * Accepts clauses joined by `&&`, each `key=literal`, `key!=literal` or a bare `key` (truthiness,
 * §10.5). Keys are `outcome`, `preferred_label`, `context.<path>` or an unqualified context key
 * (§10.4). Literals are quoted strings (escapes `\"`, `\\`, `\n`, `\r`, `\t`), integers, `true`/`false`
 * or bare literals `[A-Za-z_][A-Za-z0-9_.:-]*`. Whitespace around tokens is ignored. Blank text gives
 * zero clauses, which always holds.
 *
 * @throws {ConditionSyntaxError} when `text` does not match the grammar, with the offset, line and
 * column inside `text`; operators of §10.7 (`||`, `!`, `contains`, `<`, ...) are named in the message.
 * @example
 * ```ts
 * const ast = parseCondition('outcome=success && context.tests_passed=true');
 * ast.clauses.length; // 2
 * ```
 */
export function parseCondition(text: string): ConditionAst {
  const result = matchCondition(text);
  if (result.ok) return result.ast;
  throw explainConditionFailure({ source: text, failureOffset: result.offset, expected: result.expected });
}
