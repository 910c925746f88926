import type { Node as OhmNode } from 'ohm-js';
import type {
  ConditionAst,
  ConditionClause,
  ConditionExpression,
  ConditionExtension,
  ConditionKey,
  ConditionLiteral,
  ConditionOperator,
  ConditionSpan,
} from './condition-ast.js';
import { conditionGrammar } from './condition-grammar.js';

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', n: '\n', r: '\r', t: '\t' };
const BOOLEAN_LITERALS: ReadonlySet<string> = new Set(['true', 'false']);
/** The operators of spec §10.2; every other one is an extension. */
const SPEC_OPERATORS: ReadonlySet<string> = new Set(['=', '!=']);

function spanOf(node: OhmNode): ConditionSpan {
  return { offset: node.source.startIdx, length: node.source.endIdx - node.source.startIdx };
}

function keyOf(node: OhmNode): ConditionKey {
  return { path: node.sourceString, span: spanOf(node) };
}

/** What one `toAst` call collects besides the tree; reset by `matchCondition`. */
let clauses: ConditionClause[] = [];
let extensions: ConditionExtension[] = [];

function junction(kind: 'and' | 'or', list: OhmNode, separator: string): ConditionExpression {
  const items = list.asIteration().children;
  const operands = items.map((item) => item.toAst() as ConditionExpression);
  if (operands.length === 1) return operands[0]!;
  if (kind === 'or') {
    // The separators of a NonemptyListOf are its second child's children.
    for (const token of list.children[1]?.children ?? []) {
      extensions.push({ construct: separator, span: spanOf(token) });
    }
  }
  return { kind, operands, span: spanOf(list) };
}

/** The semantics that turn a condition CST into our plain {@link ConditionAst}. Internal. */
const semantics = conditionGrammar.createSemantics().addOperation<unknown>('toAst', {
  Condition_expression(or: OhmNode): ConditionExpression {
    return or.toAst() as ConditionExpression;
  },
  Condition_empty(_end: OhmNode): undefined {
    return undefined;
  },
  Or(list: OhmNode): ConditionExpression {
    return junction('or', list, '||');
  },
  And(list: OhmNode): ConditionExpression {
    return junction('and', list, '&&');
  },
  Unary_not(not: OhmNode, operand: OhmNode): ConditionExpression {
    extensions.push({ construct: '!', span: spanOf(not) });
    const start = not.source.startIdx;
    return {
      kind: 'not',
      operand: operand.toAst() as ConditionExpression,
      span: { offset: start, length: operand.source.endIdx - start },
    };
  },
  Primary_group(open: OhmNode, inner: OhmNode, _close: OhmNode): ConditionExpression {
    extensions.push({ construct: '(', span: spanOf(open) });
    return inner.toAst() as ConditionExpression;
  },
  Clause_comparison(key: OhmNode, operator: OhmNode, literal: OhmNode): ConditionClause {
    const start = key.source.startIdx;
    const written = operator.sourceString as ConditionOperator;
    if (!SPEC_OPERATORS.has(written)) extensions.push({ construct: written, span: spanOf(operator) });
    const value = literal.toAst() as ConditionLiteral;
    const clause: ConditionClause = {
      kind: 'comparison',
      key: keyOf(key),
      operator: written,
      operatorSpan: spanOf(operator),
      literal: value,
      span: { offset: start, length: literal.source.endIdx - start },
    };
    clauses.push(clause);
    return clause;
  },
  Clause_truthy(key: OhmNode): ConditionClause {
    const clause: ConditionClause = { kind: 'truthy', key: keyOf(key), span: spanOf(key) };
    clauses.push(clause);
    return clause;
  },
  literal_string(string: OhmNode): ConditionLiteral {
    return {
      kind: 'string',
      value: string.toAst() as string,
      raw: string.sourceString,
      span: spanOf(string),
    };
  },
  literal_number(number: OhmNode): ConditionLiteral {
    const raw = number.sourceString;
    if (raw.includes('.')) {
      extensions.push({ construct: raw, span: spanOf(number) });
      return { kind: 'number', value: raw, raw, span: spanOf(number) };
    }
    return { kind: 'integer', value: raw, raw, span: spanOf(number) };
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

const KEY_EXPECTED = 'a key such as outcome, preferred_label or context.name';

/**
 * Ohm's expected text without the `(` and `!` that may also start a clause: "Expected a key such as ..." reads
 * better than "Expected a key such as ..., "(", or "!"", and the key is what is usually missing.
 */
function simplerExpected(expected: string): string {
  return expected
    .replace(`end of input, ${KEY_EXPECTED}, "(", or "!"`, `end of input or ${KEY_EXPECTED}`)
    .replace(`${KEY_EXPECTED}, "(", or "!"`, KEY_EXPECTED);
}

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
    return {
      ok: false,
      offset: match.getRightmostFailurePosition(),
      expected: simplerExpected(match.getExpectedText()),
    };
  }
  clauses = [];
  extensions = [];
  const expression = semantics(match).toAst() as ConditionExpression | undefined;
  const ast: ConditionAst = {
    expression,
    clauses: clauses.sort((left, right) => left.span.offset - right.span.offset),
    extensions: extensions.sort((left, right) => left.span.offset - right.span.offset),
    source,
  };
  clauses = [];
  extensions = [];
  return { ok: true, ast };
}
