import { describe, expect, it } from 'vitest';
import { ConditionSyntaxError } from './errors/condition-syntax-error.js';
import { evaluateCondition } from './evaluate-condition.js';
import { parseCondition } from './parse-condition.js';
import type { ConditionContext } from './resolve-condition-key.js';

function contextOf(entries: Record<string, unknown> = {}): Map<string, unknown> {
  return new Map(Object.entries(entries));
}

describe('evaluateCondition: the examples of spec §10.6', () => {
  const examples: ReadonlyArray<
    readonly [
      condition: string,
      outcome: string,
      preferredLabel: string,
      context: Record<string, unknown>,
      expected: boolean,
    ]
  > = [
    ['outcome=success', 'success', '', {}, true],
    ['outcome=success', 'fail', '', {}, false],
    ['outcome=fail', 'fail', '', {}, true],
    ['outcome=fail', 'success', '', {}, false],
    ['outcome=success && context.tests_passed=true', 'success', '', { 'context.tests_passed': 'true' }, true],
    ['outcome=success && context.tests_passed=true', 'success', '', { tests_passed: true }, true],
    ['outcome=success && context.tests_passed=true', 'success', '', { tests_passed: false }, false],
    ['outcome=success && context.tests_passed=true', 'fail', '', { tests_passed: true }, false],
    ['outcome=success && context.tests_passed=true', 'success', '', {}, false],
    ['context.loop_state!=exhausted', 'success', '', { loop_state: 'running' }, true],
    ['context.loop_state!=exhausted', 'success', '', { loop_state: 'exhausted' }, false],
    ['context.loop_state!=exhausted', 'success', '', {}, true],
    ['preferred_label=Fix', 'success', 'Fix', {}, true],
    ['preferred_label=Fix', 'success', 'Approve', {}, false],
  ];
  it.each(examples)(
    '%j with outcome=%s, label=%j, context %j is %s',
    (condition, outcome, label, context, expected) => {
      expect(
        evaluateCondition(condition, { outcome, preferredLabel: label, context: contextOf(context) }),
      ).toBe(expected);
    },
  );
});

describe('evaluateCondition (spec §11.9)', () => {
  it('compares with "=" exactly and case-sensitively', () => {
    const input = { outcome: 'Success', context: contextOf() };
    expect(evaluateCondition('outcome=success', input)).toBe(false);
    expect(evaluateCondition('outcome=Success', input)).toBe(true);
  });

  it('negates with "!="', () => {
    expect(evaluateCondition('outcome!=success', { outcome: 'fail', context: contextOf() })).toBe(true);
    expect(evaluateCondition('outcome!=success', { outcome: 'success', context: contextOf() })).toBe(false);
  });

  it('requires every "&&" clause to hold', () => {
    const context = contextOf({ a: '1', b: '2', c: '3' });
    expect(
      evaluateCondition('context.a=1 && context.b=2 && context.c=3', { outcome: 'success', context }),
    ).toBe(true);
    expect(
      evaluateCondition('context.a=1 && context.b=2 && context.c=4', { outcome: 'success', context }),
    ).toBe(false);
    expect(
      evaluateCondition('context.a=0 && context.b=2 && context.c=3', { outcome: 'success', context }),
    ).toBe(false);
  });

  it('resolves outcome to the outcome status, also a custom outcome word', () => {
    expect(evaluateCondition('outcome=needs_dod', { outcome: 'needs_dod', context: contextOf() })).toBe(true);
  });

  it('resolves preferred_label to "" when the outcome has none', () => {
    const input = { outcome: 'success', context: contextOf() };
    expect(evaluateCondition('preferred_label=""', input)).toBe(true);
    expect(evaluateCondition('preferred_label!=Fix', input)).toBe(true);
  });

  it('treats a missing context key as "" that equals no non-empty value', () => {
    const input = { outcome: 'success', context: contextOf() };
    expect(evaluateCondition('context.missing=anything', input)).toBe(false);
    expect(evaluateCondition('context.missing=""', input)).toBe(true);
    expect(evaluateCondition('context.missing!=anything', input)).toBe(true);
  });

  it('holds for an empty condition', () => {
    expect(evaluateCondition('', { outcome: 'fail', context: contextOf() })).toBe(true);
    expect(evaluateCondition('   ', { outcome: 'fail', context: contextOf() })).toBe(true);
    expect(evaluateCondition(parseCondition(''), { outcome: 'fail', context: contextOf() })).toBe(true);
  });
});

describe('evaluateCondition key resolution (spec §10.4)', () => {
  it('prefers the full "context." key over the key without the prefix', () => {
    const context = contextOf({ 'context.mode': 'full', mode: 'short' });
    expect(evaluateCondition('context.mode=full', { outcome: 'success', context })).toBe(true);
  });

  it('falls back to the key without the "context." prefix', () => {
    const context = contextOf({ mode: 'short' });
    expect(evaluateCondition('context.mode=short', { outcome: 'success', context })).toBe(true);
  });

  it('looks up an unqualified key directly and never with a "context." prefix added', () => {
    expect(
      evaluateCondition('tool.output=ok', {
        outcome: 'success',
        context: contextOf({ 'tool.output': 'ok' }),
      }),
    ).toBe(true);
    expect(
      evaluateCondition('tool.output=ok', {
        outcome: 'success',
        context: contextOf({ 'context.tool.output': 'ok' }),
      }),
    ).toBe(false);
  });

  it('reads outcome and preferred_label from the input, not from the context', () => {
    const context = contextOf({ outcome: 'fail', preferred_label: 'Other' });
    expect(
      evaluateCondition('outcome=success && preferred_label=Fix', {
        outcome: 'success',
        preferredLabel: 'Fix',
        context,
      }),
    ).toBe(true);
  });

  it('treats null like a missing value', () => {
    const context = contextOf({ 'context.flag': null, flag: 'on' });
    expect(evaluateCondition('context.flag=on', { outcome: 'success', context })).toBe(true);
    expect(
      evaluateCondition('context.other=""', { outcome: 'success', context: contextOf({ other: null }) }),
    ).toBe(true);
  });

  const stringified: ReadonlyArray<readonly [value: unknown, literal: string]> = [
    [true, 'true'],
    [false, 'false'],
    [42, '42'],
    [-1.5, '"-1.5"'],
    [10n, '10'],
    [{ a: 1 }, '"{\\"a\\":1}"'],
    [['x', 'y'], '"[\\"x\\",\\"y\\"]"'],
    [{ big: 2n }, String.raw`"{\"big\":\"2\"}"`],
    ['', '""'],
  ];
  it.each(stringified)('stringifies %s so that it equals %s', (value, literal) => {
    expect(
      evaluateCondition(`context.value=${literal}`, { outcome: 'success', context: contextOf({ value }) }),
    ).toBe(true);
  });

  it('accepts any object with get(key), such as the engine context', () => {
    const reads: string[] = [];
    const context: ConditionContext = {
      get(key) {
        reads.push(key);
        return key === 'ready' ? 'yes' : undefined;
      },
    };
    expect(evaluateCondition('context.ready=yes', { outcome: 'success', context })).toBe(true);
    expect(reads).toEqual(['context.ready', 'ready']);
  });
});

describe('evaluateCondition truthiness clauses (spec §10.5)', () => {
  const cases: ReadonlyArray<readonly [value: unknown, expected: boolean]> = [
    ['yes', true],
    ['false', true],
    [false, true],
    [0, true],
    ['', false],
    [undefined, false],
    [null, false],
  ];
  it.each(cases)('a bare key whose value is %j holds: %s', (value, expected) => {
    expect(
      evaluateCondition('context.flag', { outcome: 'success', context: contextOf({ flag: value }) }),
    ).toBe(expected);
  });

  it('holds for a bare outcome key when the outcome is non-empty', () => {
    expect(evaluateCondition('outcome', { outcome: 'success', context: contextOf() })).toBe(true);
    expect(evaluateCondition('preferred_label', { outcome: 'success', context: contextOf() })).toBe(false);
  });
});

describe('evaluateCondition input forms', () => {
  it('gives the same answer for a string and for its parsed AST', () => {
    const text = 'outcome=fail && context.failure_class!=transient_infra';
    const input = { outcome: 'fail', context: contextOf({ failure_class: 'deterministic' }) };
    expect(evaluateCondition(text, input)).toBe(true);
    expect(evaluateCondition(parseCondition(text), input)).toBe(true);
  });

  it('answers from the cache for a repeated string as it did the first time', () => {
    const text = 'context.count=3';
    expect(evaluateCondition(text, { outcome: 'success', context: contextOf({ count: 3 }) })).toBe(true);
    expect(evaluateCondition(text, { outcome: 'success', context: contextOf({ count: 4 }) })).toBe(false);
    expect(evaluateCondition(text, { outcome: 'success', context: contextOf({ count: 3 }) })).toBe(true);
  });

  it('stays correct after more distinct conditions than the cache holds', () => {
    for (let index = 0; index < 1200; index += 1) {
      const input = { outcome: 'success', context: contextOf({ n: index }) };
      expect(evaluateCondition(`context.n=${index % 700}`, input)).toBe(index < 700);
    }
  });

  it('throws ConditionSyntaxError for a string that does not parse, every time', () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect(() =>
        evaluateCondition('outcome=fail OR outcome=retry', { outcome: 'fail', context: contextOf() }),
      ).toThrow(ConditionSyntaxError);
    }
  });
});

describe('evaluateCondition extensions (spec §10.7, issue 19)', () => {
  const context = contextOf({
    coverage: 91,
    version: '10',
    log: 'all tests passed',
    name: 'v2.1',
    empty: '',
  });
  const cases: ReadonlyArray<readonly [condition: string, outcome: string, expected: boolean]> = [
    ['outcome=fail || outcome=retry', 'retry', true],
    ['outcome=fail || outcome=retry', 'success', false],
    ['outcome=success || outcome=fail && context.coverage=0', 'success', true],
    ['(outcome=success || outcome=fail) && context.coverage=0', 'success', false],
    ['!outcome=success', 'fail', true],
    ['!context.empty', 'success', true],
    ['!(context.coverage > 90 && outcome=success)', 'success', false],
    ['context.coverage > 90', 'success', true],
    ['context.coverage >= 91 && context.coverage <= 91', 'success', true],
    ['context.coverage < 100', 'success', true],
    ['context.missing < 100', 'success', false],
    ['context.missing >= 0', 'success', false],
    ['context.version > 9', 'success', true],
    ['context.version > "9"', 'success', true],
    ['context.name > v10', 'success', true],
    ['context.coverage > 90.5', 'success', true],
    ['context.log contains "tests passed"', 'success', true],
    ['context.log !contains failed', 'success', true],
    ['context.log contains failed', 'success', false],
    ['context.name matches "^v[0-9]+[.][0-9]+$"', 'success', true],
    ['context.name matches "^[0-9]"', 'success', false],
    ['outcome=succeeded', 'success', true],
    ['outcome=failed', 'fail', true],
    ['outcome!=failed', 'fail', false],
    ['outcome=partially_succeeded', 'partial_success', true],
    ['outcome=succeeded', 'fail', false],
    ['context.failed=failed', 'fail', false],
  ];
  it.each(cases)('%j with outcome=%s is %s', (condition, outcome, expected) => {
    expect(evaluateCondition(condition, { outcome, context })).toBe(expected);
  });
});

describe('typed fields (README "Typed data")', () => {
  const context = new Map<string, unknown>([
    ['review', { verdict: 'approve', scores: [3, 9] }],
    ['review.count', 2],
    ['score', 9.0],
  ]);
  it('reads fields inside JSON values, by context. or state., and prefers a flat key', () => {
    expect(evaluateCondition('state.review.verdict=approve', { outcome: 'success', context })).toBe(true);
    expect(evaluateCondition('context.review.verdict=reject', { outcome: 'success', context })).toBe(false);
    expect(evaluateCondition('state.review.count=2', { outcome: 'success', context })).toBe(true);
    expect(evaluateCondition('state.review.missing', { outcome: 'success', context })).toBe(false);
  });

  it('compares numbers as numbers with = and !=', () => {
    expect(evaluateCondition('context.score=9.0', { outcome: 'success', context })).toBe(true);
    expect(evaluateCondition('context.score!=9', { outcome: 'success', context })).toBe(false);
    expect(evaluateCondition('context.score!=9.5', { outcome: 'success', context })).toBe(true);
    expect(evaluateCondition('context.score=nine', { outcome: 'success', context })).toBe(false);
  });
});
