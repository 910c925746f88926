/**
 * Run budgets (DESIGN.md "The AI-SDK backend"): `max_budget_usd` and `max_tokens` stop a run cleanly before the
 * next LLM stage once the LLM stages so far spent them. The usage comes from the run context, where backends
 * record it: tokens in `usage.total.total_tokens`; cost in `usage.total.cost_usd` (the AI SDK backend) and
 * `cost.total.usd` (the agent-CLI backends), added up. Pure.
 */

/** The budgets of a run; absent ones are unlimited. */
export interface RunBudget {
  /** USD the LLM stages may cost. */
  readonly maxBudgetUsd?: number;
  /** Tokens (input plus output) the LLM stages may use. */
  readonly maxTokens?: number;
}

/** Context key holding the run's LLM cost so far (AI SDK backend), in USD. */
export const USAGE_TOTAL_COST_KEY = 'usage.total.cost_usd';
/** Context key holding the run's agent-CLI cost so far, in USD. */
export const AGENT_TOTAL_COST_KEY = 'cost.total.usd';
/** Context key holding the run's LLM tokens so far. */
export const USAGE_TOTAL_TOKENS_KEY = 'usage.total.total_tokens';

function amount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * Why the run must stop before LLM stage `nodeId`, or undefined while the budget lasts. `read` reads a context
 * value. The reason names the budget, the amount used and how to continue.
 */
export function budgetStopReason(options: {
  readonly budget: RunBudget;
  readonly nodeId: string;
  readonly read: (key: string) => unknown;
}): string | undefined {
  const { budget, nodeId } = options;
  if (budget.maxBudgetUsd !== undefined) {
    const spent = amount(options.read(USAGE_TOTAL_COST_KEY)) + amount(options.read(AGENT_TOTAL_COST_KEY));
    if (spent >= budget.maxBudgetUsd) {
      return `budget max_budget_usd=${budget.maxBudgetUsd} spent: the LLM stages cost $${spent.toFixed(4)} before LLM stage "${nodeId}". Resume with a bigger budget: attractor resume <run dir> --max-budget-usd <usd>`;
    }
  }
  if (budget.maxTokens !== undefined) {
    const used = amount(options.read(USAGE_TOTAL_TOKENS_KEY));
    if (used >= budget.maxTokens) {
      return `budget max_tokens=${budget.maxTokens} spent: the LLM stages used ${used} tokens before LLM stage "${nodeId}". Resume with a bigger budget: attractor resume <run dir> --max-tokens <tokens>`;
    }
  }
  return undefined;
}
