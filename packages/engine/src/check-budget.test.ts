import { describe, expect, it } from 'vitest';
import { budgetStopReason } from './check-budget.js';

function reader(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

describe('budgetStopReason (run budgets)', () => {
  it('lets an LLM stage start while the budgets last', () => {
    const read = reader({ 'usage.total.cost_usd': 0.49, 'usage.total.total_tokens': 999 });
    expect(
      budgetStopReason({ budget: { maxBudgetUsd: 0.5, maxTokens: 1000 }, nodeId: 'b', read }),
    ).toBeUndefined();
    expect(budgetStopReason({ budget: {}, nodeId: 'b', read })).toBeUndefined();
  });

  it('adds up the cost the AI SDK and agent-CLI backends recorded', () => {
    const read = reader({ 'usage.total.cost_usd': 0.3, 'cost.total.usd': 0.25 });
    expect(budgetStopReason({ budget: { maxBudgetUsd: 0.5 }, nodeId: 'b', read })).toContain('cost $0.5500');
  });

  it('names the spent budget, the amount used and how to continue', () => {
    const read = reader({ 'usage.total.cost_usd': 0.5, 'usage.total.total_tokens': 1000 });
    expect(budgetStopReason({ budget: { maxBudgetUsd: 0.5 }, nodeId: 'review', read })).toBe(
      'budget max_budget_usd=0.5 spent: the model calls cost $0.5000 before LLM stage "review". Resume with a bigger budget: attractor resume <run dir> --max-budget-usd <usd>',
    );
    expect(budgetStopReason({ budget: { maxTokens: 1000 }, nodeId: 'review', read })).toContain(
      'budget max_tokens=1000 spent: the model calls used 1000 tokens',
    );
  });
});
