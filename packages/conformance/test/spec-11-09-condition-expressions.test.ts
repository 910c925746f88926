/** Spec §11.9 Condition Expressions: one test per checkbox, with evaluateCondition and through real routing. */
import { evaluateCondition, parseCondition } from '@attractor/condition';
import { Context } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { runDot } from './support/run-dot.js';
import { scriptedRegistry } from './support/scripted.js';

function check(
  condition: string,
  outcome = 'success',
  values: Record<string, string> = {},
  preferredLabel = '',
) {
  return evaluateCondition(condition, { outcome, preferredLabel, context: new Context(values) });
}

describe('§11.9 Condition Expressions', () => {
  it('`=` (equals) operator works for string comparison', () => {
    expect(check('context.env=prod', 'success', { env: 'prod' })).toBe(true);
    expect(check('context.env=prod', 'success', { env: 'production' })).toBe(false);
    expect(check('context.env="prod"', 'success', { env: 'prod' })).toBe(true);
  });

  it('`!=` (not equals) operator works', () => {
    expect(check('outcome!=success', 'fail')).toBe(true);
    expect(check('outcome!=success', 'success')).toBe(false);
    expect(check('context.env!=prod', 'success', {})).toBe(true);
  });

  it('`&&` (AND) conjunction works with multiple clauses', () => {
    const condition = 'outcome=success && context.tests=passed && context.lint!=failed';
    expect(parseCondition(condition).clauses).toHaveLength(3);
    expect(check(condition, 'success', { tests: 'passed', lint: 'ok' })).toBe(true);
    expect(check(condition, 'success', { tests: 'passed', lint: 'failed' })).toBe(false);
    expect(check(condition, 'fail', { tests: 'passed', lint: 'ok' })).toBe(false);
  });

  it("`outcome` variable resolves to the current node's outcome status", async () => {
    expect(check('outcome=partial_success', 'partial_success')).toBe(true);
    const { registry } = scriptedRegistry({ work: ['partial_success'] });
    const { result } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]; work [prompt="w"]; full [prompt="f"]; partial [prompt="p"]
        start -> work
        work -> full [condition="outcome=success"]
        work -> partial [condition="outcome=partial_success"]
        full -> exit; partial -> exit
      }`,
      { registry },
    );
    expect(result.completedNodes).toEqual(['start', 'work', 'partial', 'exit']);
  });

  it("`preferred_label` variable resolves to the outcome's preferred label", async () => {
    expect(check('preferred_label=Approve', 'success', {}, 'Approve')).toBe(true);
    const { registry } = scriptedRegistry({ review: [{ status: 'success', preferredLabel: 'Rework' }] });
    const { result } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]; review [prompt="r"]; rework [prompt="w"]
        start -> review
        review -> exit [condition="preferred_label=Ship"]
        review -> rework [condition="preferred_label=Rework"]
        rework -> exit
      }`,
      { registry },
    );
    expect(result.completedNodes).toEqual(['start', 'review', 'rework', 'exit']);
  });

  it('`context.*` variables resolve to context values (missing keys = empty string)', () => {
    expect(check('context.count=3', 'success', { count: '3' })).toBe(true);
    expect(
      evaluateCondition('context.count=3', { outcome: 'success', context: new Context({ count: 3 }) }),
    ).toBe(true);
    expect(check('context.missing=""', 'success', {})).toBe(true);
    expect(check('context.missing!=x', 'success', {})).toBe(true);
    // A bare key is truthy when it is set and not empty.
    expect(check('context.ready', 'success', { ready: 'yes' })).toBe(true);
    expect(check('context.ready', 'success', {})).toBe(false);
  });

  it('Empty condition always evaluates to true (unconditional edge)', () => {
    expect(check('', 'fail')).toBe(true);
    expect(check('   ', 'success')).toBe(true);
  });
});
