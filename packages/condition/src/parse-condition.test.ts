import { describe, expect, it } from 'vitest';
import { ConditionSyntaxError } from './errors/condition-syntax-error.js';
import { parseCondition } from './parse-condition.js';

function syntaxErrorOf(text: string): ConditionSyntaxError {
  try {
    parseCondition(text);
  } catch (error) {
    if (ConditionSyntaxError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseCondition (spec §10.2) accepts', () => {
  const accepted: ReadonlyArray<readonly [text: string, clauses: number]> = [
    ['outcome=success', 1],
    ['outcome=fail', 1],
    ['outcome=success && context.tests_passed=true', 2],
    ['context.loop_state!=exhausted', 1],
    ['preferred_label=Fix', 1],
    ['  outcome = success  &&  preferred_label != "Needs work"  ', 2],
    ['context.parallel.fan_in.best_id=branch_a', 1],
    ['tool.output=ok', 1],
    ['context.count=-3', 1],
    ['context.count=42', 1],
    ['context.version=v1.2:rc-3', 1],
    ['context.message="say \\"hi\\"\\n"', 1],
    ['context.empty=""', 1],
    ['context.tests_passed', 1],
    ['context.a && context.b=1 && outcome!=fail', 3],
    ['outcome=success\n&& context.ready=true', 2],
    ['outcome=fail || outcome=retry', 2],
    ['!context.done', 1],
    ['context.score > 5', 1],
    ['context.score >= 5.5', 1],
    ['context.score<5', 1],
    ['context.score<=5 && context.score>-1', 2],
    ['context.log contains error', 1],
    ['context.log !contains "not found"', 1],
    ['context.name matches "^a"', 1],
    ['!(outcome=success || context.x) && context.y', 3],
    ['', 0],
    ['   \t\n ', 0],
  ];
  it.each(accepted)('%j with %i clauses', (text, clauses) => {
    expect(parseCondition(text).clauses).toHaveLength(clauses);
  });
});

describe('parseCondition (spec §10.2) rejects', () => {
  const rejected: ReadonlyArray<readonly [text: string, offset: number, shortMessage: string]> = [
    ['outcome=', 8, 'Expected a value'],
    ['outcome=success &&', 18, 'Expected a key such as outcome, preferred_label or context.name'],
    [
      '&& outcome=success',
      0,
      'Expected end of input or a key such as outcome, preferred_label or context.name',
    ],
    [
      'outcome=success && && context.x=1',
      19,
      'Expected a key such as outcome, preferred_label or context.name',
    ],
    ['outcome=success context.x=1', 16, 'Expected end of input, "||", or "&&"'],
    ['=success', 0, 'Expected end of input or a key such as outcome, preferred_label or context.name'],
    ['context.=x', 8, 'Expected a name after "."'],
    ['outcome=5abc', 8, 'Expected a value'],
    ['outcome=success;', 15, 'Expected end of input, "||", or "&&"'],
    ['context.x="open', 10, 'Unterminated string'],
    ['context.x="a\\qb"', 12, 'Unknown escape "\\q" in a string'],
    ['outcome==success', 7, '"==" is not part of the condition language'],
    ['context.name =~ x', 13, '"=~" (regular expression match) is not part of the condition language'],
    ['outcome=success and context.x=1', 16, 'And is not part of the condition language'],
    ['outcome=success OR outcome=fail', 16, 'Or is not part of the condition language'],
    ['outcome=success & context.x=1', 16, '"&" is not part of the condition language'],
    ['context.name matches "(a"', 21, 'Invalid regular expression after "matches": /(a/: Unterminated group'],
    ['outcome=success || ', 19, 'Expected a key such as outcome, preferred_label or context.name'],
    ['(outcome=success', 16, 'Expected ")", "||", or "&&"'],
  ];
  it.each(rejected)('%j at offset %i: %s', (text, offset, shortMessage) => {
    const error = syntaxErrorOf(text);
    expect(error.shortMessage).toBe(shortMessage);
    expect(error.location.offset).toBe(offset);
    expect(error.code).toBe('CONDITION_SYNTAX');
  });
});

describe('parseCondition with strict (spec §10.2 only, the CLI --strict)', () => {
  const refused: ReadonlyArray<readonly [text: string, offset: number, shortMessage: string]> = [
    ['outcome=fail || outcome=retry', 13, '"||" (or) is not part of the condition language'],
    ['!context.done', 0, '"!" (not) is not part of the condition language'],
    ['context.score > 5', 14, '">" (numeric comparison) is not part of the condition language'],
    ['context.score >= 5', 14, '">=" (numeric comparison) is not part of the condition language'],
    ['context.score<5', 13, '"<" (numeric comparison) is not part of the condition language'],
    ['context.log contains error', 12, '"contains" is not part of the condition language'],
    ['context.name matches "^a"', 13, '"matches" is not part of the condition language'],
    ['(outcome=success)', 0, 'Parentheses is not part of the condition language'],
  ];
  it.each(refused)('%j at offset %i: %s', (text, offset, shortMessage) => {
    let caught: unknown;
    try {
      parseCondition(text, { strict: true });
    } catch (error) {
      caught = error;
    }
    expect(ConditionSyntaxError.isInstance(caught)).toBe(true);
    const error = caught as ConditionSyntaxError;
    expect(error.shortMessage).toBe(shortMessage);
    expect(error.location.offset).toBe(offset);
    expect(error.message).toContain('--strict keeps to it');
  });

  it('accepts the §10.2 grammar', () => {
    expect(
      parseCondition('outcome=success && context.x!=1 && context.ready', { strict: true }).clauses,
    ).toHaveLength(3);
  });
});

describe('parseCondition precedence and extensions (spec §10.7)', () => {
  it('binds ! tighter than && and && tighter than ||', () => {
    const ast = parseCondition('a || b && !c');
    expect(ast.expression?.kind).toBe('or');
    const or = ast.expression as {
      operands: readonly { kind: string; operands?: readonly { kind: string }[] }[];
    };
    expect(or.operands.map((operand) => operand.kind)).toEqual(['truthy', 'and']);
    expect(or.operands[1]?.operands?.map((operand) => operand.kind)).toEqual(['truthy', 'not']);
  });

  it('groups with parentheses', () => {
    const ast = parseCondition('(a || b) && c');
    expect(ast.expression?.kind).toBe('and');
  });

  it('lists every construct beyond §10.2 with its place, in source order', () => {
    expect(parseCondition('!(x contains "a") || y >= 1.5').extensions).toEqual([
      { construct: '!', span: { offset: 0, length: 1 } },
      { construct: '(', span: { offset: 1, length: 1 } },
      { construct: 'contains', span: { offset: 4, length: 8 } },
      { construct: '||', span: { offset: 18, length: 2 } },
      { construct: '>=', span: { offset: 23, length: 2 } },
      { construct: '1.5', span: { offset: 26, length: 3 } },
    ]);
    expect(parseCondition('outcome=success && x!=1').extensions).toEqual([]);
  });

  it('points at the pattern of an invalid matches with its column', () => {
    const error = syntaxErrorOf('outcome=success &&\n  context.v matches "[a"');
    expect(error.location).toEqual({ offset: 39, line: 2, column: 21 });
    expect(error.message).toContain('Fix: Write a JavaScript regular expression');
  });
});

describe('parseCondition AST shape (spec §10.2)', () => {
  it('records keys, operators and literals with spans inside the condition text', () => {
    const ast = parseCondition('outcome=success && context.tests_passed != "yes"');
    expect(ast.expression?.kind).toBe('and');
    expect(ast.extensions).toEqual([]);
    expect(ast).toMatchObject({
      source: 'outcome=success && context.tests_passed != "yes"',
      clauses: [
        {
          kind: 'comparison',
          key: { path: 'outcome', span: { offset: 0, length: 7 } },
          operator: '=',
          operatorSpan: { offset: 7, length: 1 },
          literal: { kind: 'bare', value: 'success', raw: 'success', span: { offset: 8, length: 7 } },
          span: { offset: 0, length: 15 },
        },
        {
          kind: 'comparison',
          key: { path: 'context.tests_passed', span: { offset: 19, length: 20 } },
          operator: '!=',
          operatorSpan: { offset: 40, length: 2 },
          literal: { kind: 'string', value: 'yes', raw: '"yes"', span: { offset: 43, length: 5 } },
          span: { offset: 19, length: 29 },
        },
      ],
    });
  });

  it('parses a bare key as a truthiness clause', () => {
    expect(parseCondition(' context.ready ').clauses).toEqual([
      {
        kind: 'truthy',
        key: { path: 'context.ready', span: { offset: 1, length: 13 } },
        span: { offset: 1, length: 13 },
      },
    ]);
  });

  it('classifies literals as string, integer, boolean or bare', () => {
    const kinds = parseCondition('a="1" && b=-12 && c=true && d=false && e=True && f=x.y:z-1').clauses.map(
      (clause) => (clause.kind === 'comparison' ? [clause.literal.kind, clause.literal.value] : []),
    );
    expect(kinds).toEqual([
      ['string', '1'],
      ['integer', '-12'],
      ['boolean', 'true'],
      ['boolean', 'false'],
      ['bare', 'True'],
      ['bare', 'x.y:z-1'],
    ]);
  });

  it('resolves the escapes of a quoted literal', () => {
    const [clause] = parseCondition(String.raw`context.x="a\"b\\c\nd\te\rf"`).clauses;
    expect(clause?.kind === 'comparison' && clause.literal.value).toBe('a"b\\c\nd\te\rf');
  });

  it('keeps spaces inside a quoted literal', () => {
    const [clause] = parseCondition('preferred_label="Needs  work"').clauses;
    expect(clause?.kind === 'comparison' && clause.literal.value).toBe('Needs  work');
  });

  it('returns zero clauses for empty text', () => {
    expect(parseCondition('')).toEqual({ expression: undefined, clauses: [], extensions: [], source: '' });
  });
});

describe('ConditionSyntaxError (CONTRIBUTING.md "Errors")', () => {
  it('shows the condition with a caret under the unsupported operator and a fix', () => {
    const error = syntaxErrorOf('outcome=fail OR outcome=retry');
    expect(error.message).toBe(
      [
        'Line 1, col 14: Or is not part of the condition language: spec §10.2 allows only clauses joined by "&&" that compare a key with "=" or "!=", or test a bare key.',
        '> 1 | outcome=fail OR outcome=retry',
        '                   ^^',
        'Fix: Draw one edge per alternative, each with its own condition (edges are tried in order, spec §3.3).',
      ].join('\n'),
    );
    expect(error.unsupportedOperator).toBe('OR');
    expect(error.length).toBe(2);
    expect(error.location).toEqual({ offset: 13, line: 1, column: 14 });
  });

  it('says what was expected at a plain syntax error', () => {
    const error = syntaxErrorOf('outcome=');
    expect(error.expected).toBe('a value');
    expect(error.unsupportedOperator).toBeUndefined();
    expect(error.message).toBe(
      [
        'Line 1, col 9: expected a value.',
        '> 1 | outcome=',
        '              ^',
        'Fix: Write the value as a name ([A-Za-z_][A-Za-z0-9_.:-]*), an integer, or a quoted string, e.g. context.version="1.5".',
      ].join('\n'),
    );
  });

  it('counts lines and columns in multi-line conditions', () => {
    const error = syntaxErrorOf('outcome=success &&\n  context.x == 1');
    expect(error.location).toEqual({ offset: 31, line: 2, column: 13 });
    expect(error.message).toContain('> 2 |   context.x == 1\n                  ^');
  });

  it('suggests quoting a value that contains spaces', () => {
    expect(syntaxErrorOf('preferred_label=Needs work').message).toContain(
      'Fix: Quote a value that contains spaces (key="two words"), and join clauses with "&&".',
    );
  });

  it('is recognised by isInstance and is an Error', () => {
    const error = syntaxErrorOf('x==');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConditionSyntaxError');
    expect(ConditionSyntaxError.isInstance(error)).toBe(true);
    expect(ConditionSyntaxError.isInstance(new Error('x'))).toBe(false);
    expect(ConditionSyntaxError.isInstance(null)).toBe(false);
  });
});
