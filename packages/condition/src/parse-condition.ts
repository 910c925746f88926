import type { ConditionAst } from './condition-ast.js';
import { compiledPattern } from './condition-pattern.js';
import {
  explainConditionFailure,
  explainInvalidPattern,
  explainStrictExtension,
} from './explain-condition-failure.js';
import { matchCondition } from './to-condition-ast.js';

/** Options of {@link parseCondition}. */
export interface ParseConditionOptions {
  /**
   * Keep to the grammar of spec §10.2: refuse `||`, `!`, parentheses, `<`, `>`, `<=`, `>=`, `contains`,
   * `!contains`, `matches` and decimal numbers (the CLI's `--strict`). Default: false.
   */
  readonly strict?: boolean;
}

/**
 * Parses a condition expression (spec §10.2, with the extensions of §10.7) into a {@link ConditionAst} with spans
 * inside `text`.
 *
 * Accepts clauses `key=literal`, `key!=literal` or a bare `key` (truthiness, §10.5) joined by `&&`; and, beyond
 * §10.2 (listed in `ast.extensions`): `||` (looser than `&&`), prefix `!`, parentheses, and the operators `<`, `>`,
 * `<=`, `>=`, `contains`, `!contains`, `matches`. Keys are `outcome`, `preferred_label`, `context.<path>` or an
 * unqualified context key (§10.4). Literals are quoted strings (escapes `\"`, `\\`, `\n`, `\r`, `\t`), numbers,
 * `true`/`false` or bare literals `[A-Za-z_][A-Za-z0-9_.:-]*`. Whitespace around tokens is ignored. Blank text gives
 * no expression, which always holds.
 *
 * @throws {ConditionSyntaxError} when `text` does not match the grammar, with the offset, line and column inside
 * `text` and a fix; when a `matches` pattern is not a valid regular expression (at the pattern); and with
 * `strict`, at the first extension.
 * @example
 * ```ts
 * const ast = parseCondition('outcome=success && context.tests_passed=true');
 * ast.clauses.length; // 2
 * parseCondition('context.coverage >= 80 || outcome=partial_success').extensions[0]?.construct; // '>='
 * ```
 */
export function parseCondition(text: string, options: ParseConditionOptions = {}): ConditionAst {
  const result = matchCondition(text);
  if (!result.ok) {
    throw explainConditionFailure({
      source: text,
      failureOffset: result.offset,
      expected: result.expected,
      strict: options.strict ?? false,
    });
  }
  const { ast } = result;
  for (const clause of ast.clauses) {
    if (clause.kind !== 'comparison' || clause.operator !== 'matches') continue;
    try {
      compiledPattern(clause.literal.value);
    } catch (error) {
      throw explainInvalidPattern({
        source: text,
        offset: clause.literal.span.offset,
        length: clause.literal.span.length,
        reason:
          error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error),
      });
    }
  }
  const first = ast.extensions[0];
  if (options.strict === true && first !== undefined) throw explainStrictExtension(text, first.span.offset);
  return ast;
}
