import { describe, expect, it } from 'vitest';
import { conditionAllowsOutcome, conditionTruthForOutcome } from './condition-allows-outcome.js';
import { evaluateCondition } from './evaluate-condition.js';
import { parseCondition } from './parse-condition.js';

describe('conditionAllowsOutcome (spec §10.3)', () => {
  const cases: ReadonlyArray<readonly [condition: string, outcome: string, allowed: boolean]> = [
    ['outcome=success', 'success', true],
    ['outcome=success', 'fail', false],
    ['outcome!=success', 'success', false],
    ['outcome!=success', 'fail', true],
    ['outcome=fail && context.failure_class=transient_infra', 'fail', true],
    ['outcome=fail && context.failure_class=transient_infra', 'success', false],
    ['outcome=success && outcome=fail', 'success', false],
    ['outcome=success && outcome=fail', 'fail', false],
    ['context.tool_stdout=all_complete', 'success', true],
    ['preferred_label=Fix', 'fail', true],
    ['outcome', 'success', true],
    ['', 'fail', true],
  ];
  it.each(cases)('%j allows outcome %j: %s', (condition, outcome, allowed) => {
    expect(conditionAllowsOutcome(parseCondition(condition), outcome)).toBe(allowed);
  });

  it('agrees with evaluateCondition when the context satisfies every other clause', () => {
    const ast = parseCondition('outcome=fail && context.failure_class=transient_infra');
    const context = new Map<string, unknown>([['failure_class', 'transient_infra']]);
    for (const outcome of ['success', 'fail', 'retry']) {
      expect(evaluateCondition(ast, { outcome, context })).toBe(conditionAllowsOutcome(ast, outcome));
    }
  });
});

describe('conditionTruthForOutcome (spec §10.3, §10.7)', () => {
  it('is true, false or undefined (depends on the context) for an outcome', () => {
    expect(
      conditionTruthForOutcome(parseCondition('outcome=success || outcome=partial_success'), 'success'),
    ).toBe(true);
    expect(
      conditionTruthForOutcome(parseCondition('outcome=success && context.x=1'), 'success'),
    ).toBeUndefined();
    expect(conditionTruthForOutcome(parseCondition('outcome=success && context.x=1'), 'fail')).toBe(false);
    expect(conditionTruthForOutcome(parseCondition('!(outcome=fail) || context.x=1'), 'success')).toBe(true);
    expect(conditionTruthForOutcome(parseCondition(''), 'fail')).toBe(true);
  });
});
