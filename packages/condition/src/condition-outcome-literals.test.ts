import { describe, expect, it } from 'vitest';
import { conditionOutcomeLiterals } from './condition-outcome-literals.js';
import { parseCondition } from './parse-condition.js';

describe('conditionOutcomeLiterals', () => {
  const cases: ReadonlyArray<readonly [condition: string, outcomes: readonly string[]]> = [
    ['outcome=success', ['success']],
    ['outcome!=success', ['success']],
    ['outcome=fail && context.failure_class=transient_infra', ['fail']],
    ['outcome!=fail && outcome!="needs_dod" && outcome!=fail', ['fail', 'needs_dod']],
    ['preferred_label=Fix && context.outcome=fail', []],
    ['outcome', []],
    ['', []],
  ];
  it.each(cases)('%j compares outcome against %j', (condition, outcomes) => {
    expect(conditionOutcomeLiterals(parseCondition(condition))).toEqual(outcomes);
  });
});
