import { describe, expect, it } from 'vitest';
import { BudgetExceededError } from './errors/budget-exceeded-error.js';
import type { PipelineEvent } from './pipeline-event.js';
import { UsageLedger } from './usage-ledger.js';
import { usageTotalsFromContext, usageTotalsToContext } from './usage-totals.js';

function usageEvent(fields: {
  inputTokens: number;
  outputTokens: number;
  costUsd?: number | 'unknown';
  cachedInputTokens?: number;
}): PipelineEvent {
  return {
    type: 'agent.usage',
    nodeId: 'n',
    seq: 1,
    timestamp: '2026-01-01T00:00:00.000Z',
    runId: 'r',
    ...fields,
  } as PipelineEvent;
}

describe('UsageLedger (the run usage and budget every walk shares)', () => {
  it('adds up every agent.usage event; other events change nothing; an unpriced call makes the cost incomplete', () => {
    const ledger = new UsageLedger({ budget: {} });
    expect(ledger.recorded).toBe(false);
    ledger.observe(usageEvent({ inputTokens: 100, outputTokens: 10, costUsd: 0.5, cachedInputTokens: 40 }));
    ledger.observe({
      type: 'stage.log',
      nodeId: 'n',
      level: 'info',
      message: 'x',
    } as unknown as PipelineEvent);
    ledger.observe(usageEvent({ inputTokens: 1, outputTokens: 2, costUsd: 'unknown' }));
    expect(ledger.recorded).toBe(true);
    expect(ledger.totals()).toEqual({
      inputTokens: 101,
      outputTokens: 12,
      cachedInputTokens: 40,
      reasoningTokens: 0,
      totalTokens: 113,
      costUsd: 0.5,
      costComplete: false,
    });
  });

  it('refuses once the spend reaches the budget, keeps the first refusal, and refuses a stage view with BudgetExceededError', () => {
    const ledger = new UsageLedger({ budget: { maxBudgetUsd: 1 } });
    ledger.observe(usageEvent({ inputTokens: 1, outputTokens: 1, costUsd: 0.99 }));
    expect(ledger.check('a', 'stage')).toBeUndefined();
    expect(ledger.stop).toBeUndefined();
    ledger.observe(usageEvent({ inputTokens: 1, outputTokens: 1, costUsd: 0.01 }));
    const stage = ledger.forStage('b');
    expect(() => stage.checkBudget()).toThrow(BudgetExceededError);
    expect(ledger.stop).toMatchObject({ budget: 'max_budget_usd', limit: 1, nodeId: 'b', when: 'call' });
    ledger.check('c', 'stage');
    expect(ledger.stop?.nodeId).toBe('b');
  });

  it("a child run's check applies its parent's budget to the parent's totals, and its refusal stops the parent too", () => {
    const parent = new UsageLedger({ budget: { maxTokens: 100 } });
    const child = new UsageLedger({ budget: {}, parent });
    // The parent counts the child's calls through its event hub; the child counts its own.
    const event = usageEvent({ inputTokens: 60, outputTokens: 40 });
    child.observe(event);
    parent.observe(event);
    expect(child.check('s3', 'stage')?.reason).toBe(
      'budget max_tokens=100 spent: the model calls used 100 tokens before LLM stage "s3". Resume with a bigger budget: attractor resume <run dir> --max-tokens <tokens>',
    );
    expect(parent.stop?.nodeId).toBe('s3');
    expect(child.stop?.nodeId).toBe('s3');
  });

  it('a resumed run goes on from the totals its context recorded (the legacy agent cost key counts in)', () => {
    const recorded = usageTotalsFromContext(
      (key) =>
        ({
          'usage.total.input_tokens': 10,
          'usage.total.output_tokens': 5,
          'usage.total.total_tokens': 15,
          'usage.total.cost_usd': 0.25,
          'cost.total.usd': 0.5,
        })[key],
    );
    const ledger = new UsageLedger({ budget: { maxBudgetUsd: 0.75 } });
    ledger.seed(recorded!);
    expect(ledger.check('x', 'stage')?.spent).toBe(0.75);
    expect(usageTotalsToContext(ledger.totals())).toMatchObject({
      'usage.total.total_tokens': 15,
      'usage.total.cost_usd': 0.75,
      'usage.total.cost_complete': true,
    });
    expect(usageTotalsFromContext(() => undefined)).toBeUndefined();
  });
});
