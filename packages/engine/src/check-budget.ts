/**
 * Run budgets (spec §3.2 run loop; README "Run options"): `max_budget_usd` and `max_tokens` stop a run once its model
 * calls spent them, checked before each LLM stage and before each model call (see usage-ledger.ts). Pure.
 */
import {
  LEGACY_AGENT_COST_KEY,
  USAGE_TOTAL_KEYS,
  type UsageTotals,
  usageTotalsFromContext,
  ZERO_USAGE_TOTALS,
} from './usage-totals.js';

/** The budgets of a run; absent ones are unlimited. */
export interface RunBudget {
  /** USD the model calls may cost. */
  readonly maxBudgetUsd?: number;
  /** Tokens (input plus output) the model calls may use. */
  readonly maxTokens?: number;
}

/** Why a run stopped for its budget: which budget, its limit, what was spent, and where. */
export interface BudgetStop {
  /** The budget that ran out, named as the graph attribute. */
  readonly budget: 'max_budget_usd' | 'max_tokens';
  /** The limit: USD for `max_budget_usd`, tokens for `max_tokens`. */
  readonly limit: number;
  /** What the run had spent when the check refused: USD or tokens, like `limit`. */
  readonly spent: number;
  /** The LLM stage that was refused. */
  readonly nodeId: string;
  /** `stage`: refused before the stage started; `call`: refused before a model call inside the stage. */
  readonly when: 'stage' | 'call';
  /** The message: the budget, the amount spent, where, and how to continue. */
  readonly reason: string;
}

/**
 * The budget stop for spending `totals` under `budget`, or undefined while the budget lasts: a budget is spent once
 * the usage reaches it. Pure.
 */
export function budgetStop(options: {
  readonly budget: RunBudget;
  readonly totals: UsageTotals;
  readonly nodeId: string;
  readonly when: BudgetStop['when'];
}): BudgetStop | undefined {
  const { budget, totals, nodeId, when } = options;
  const where =
    when === 'stage' ? `before LLM stage "${nodeId}"` : `before a model call of LLM stage "${nodeId}"`;
  if (budget.maxBudgetUsd !== undefined && totals.costUsd >= budget.maxBudgetUsd) {
    return {
      budget: 'max_budget_usd',
      limit: budget.maxBudgetUsd,
      spent: totals.costUsd,
      nodeId,
      when,
      reason: `budget max_budget_usd=${budget.maxBudgetUsd} spent: the model calls cost $${totals.costUsd.toFixed(4)} ${where}. Resume with a bigger budget: attractor resume <run dir> --max-budget-usd <usd>`,
    };
  }
  if (budget.maxTokens !== undefined && totals.totalTokens >= budget.maxTokens) {
    return {
      budget: 'max_tokens',
      limit: budget.maxTokens,
      spent: totals.totalTokens,
      nodeId,
      when,
      reason: `budget max_tokens=${budget.maxTokens} spent: the model calls used ${totals.totalTokens} tokens ${where}. Resume with a bigger budget: attractor resume <run dir> --max-tokens <tokens>`,
    };
  }
  return undefined;
}

/** Context key holding the run's LLM cost so far, in USD (written by the engine after every stage). */
export const USAGE_TOTAL_COST_KEY = USAGE_TOTAL_KEYS.costUsd;
/** Context key agent-CLI backends wrote their reported cost to before the engine kept the totals; still read. */
export const AGENT_TOTAL_COST_KEY = LEGACY_AGENT_COST_KEY;
/** Context key holding the run's LLM tokens so far. */
export const USAGE_TOTAL_TOKENS_KEY = USAGE_TOTAL_KEYS.totalTokens;

/**
 * Why the run must stop before LLM stage `nodeId`, or undefined while the budget lasts, from the totals a context
 * holds (`usage.total.*`). `read` reads a context value. The engine itself checks its run's usage ledger, which
 * counts parallel branches and child runs too.
 * @deprecated Use {@link budgetStop} with the run's totals (`runtime.usage.totals()`).
 */
export function budgetStopReason(options: {
  readonly budget: RunBudget;
  readonly nodeId: string;
  readonly read: (key: string) => unknown;
}): string | undefined {
  const totals = usageTotalsFromContext(options.read) ?? ZERO_USAGE_TOTALS;
  return budgetStop({ budget: options.budget, totals, nodeId: options.nodeId, when: 'stage' })?.reason;
}
