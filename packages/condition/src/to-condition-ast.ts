import type { Node as OhmNode } from 'ohm-js';
import type {
  ConditionAst,
  ConditionClause,
  ConditionKey,
  ConditionLiteral,
  ConditionOperator,
  ConditionSpan,
} from './condition-ast.js';
import { conditionGrammar } from './condition-grammar.js';

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', n: '\n', r: '\r', t: '\t' };
const BOOLEAN_LITERALS: ReadonlySet<string> = new Set(['true', 'false']);

function spanOf(node: OhmNode): ConditionSpan {
  return { offset: node.source.startIdx, length: node.source.endIdx - node.source.startIdx };
}

function keyOf(node: OhmNode): ConditionKey {
  return { path: node.sourceString, span: spanOf(node) };
}

/** The semantics that turn a condition CST into our plain {@link ConditionAst}. Internal. */
const semantics = conditionGrammar.createSemantics().addOperation<unknown>('toAst', {
  Condition_clauses(list: OhmNode): readonly ConditionClause[] {
    return list.asIteration().children.map((clause) => clause.toAst() as ConditionClause);
  },
  Condition_empty(_end: OhmNode): readonly ConditionClause[] {
    return [];
  },
  Clause_comparison(key: OhmNode, operator: OhmNode, literal: OhmNode): ConditionClause {
    const start = key.source.startIdx;
    return {
      kind: 'comparison',
      key: keyOf(key),
      operator: operator.sourceString as ConditionOperator,
      operatorSpan: spanOf(operator),
      literal: literal.toAst() as ConditionLiteral,
      span: { offset: start, length: literal.source.endIdx - start },
    };
  },
  Clause_truthy(key: OhmNode): ConditionClause {
    return { kind: 'truthy', key: keyOf(key), span: spanOf(key) };
  },
  literal_string(string: OhmNode): ConditionLiteral {
    return {
      kind: 'string',
      value: string.toAst() as string,
      raw: string.sourceString,
      span: spanOf(string),
    };
  },
  literal_integer(integer: OhmNode): ConditionLiteral {
    const raw = integer.sourceString;
    return { kind: 'integer', value: raw, raw, span: spanOf(integer) };
  },
  literal_bare(bare: OhmNode): ConditionLiteral {
    const raw = bare.sourceString;
    return { kind: BOOLEAN_LITERALS.has(raw) ? 'boolean' : 'bare', value: raw, raw, span: spanOf(bare) };
  },
  string(_open: OhmNode, characters: OhmNode, _close: OhmNode): string {
    return characters.children.map((character) => character.toAst() as string).join('');
  },
  stringChar_plain(character: OhmNode): string {
    return character.sourceString;
  },
  stringChar_escape(_backslash: OhmNode, code: OhmNode): string {
    return ESCAPES[code.sourceString] ?? code.sourceString;
  },
});

/**
 * Matches `source` against the condition grammar. Returns the AST, or the failed Ohm match result's
 * rightmost failure offset and expected text for the caller to turn into a `ConditionSyntaxError`.
 * Internal.
 */
export function matchCondition(
  source: string,
):
  | { readonly ok: true; readonly ast: ConditionAst }
  | { readonly ok: false; readonly offset: number; readonly expected: string } {
  const match = conditionGrammar.match(source);
  if (match.failed()) {
    return { ok: false, offset: match.getRightmostFailurePosition(), expected: match.getExpectedText() };
  }
  const clauses = semantics(match).toAst() as readonly ConditionClause[];
  return { ok: true, ast: { clauses, source } };
}
