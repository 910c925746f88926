/**
 * A run's LLM usage totals and their place in the run context (`usage.total.*`, spec §5.1), where the engine writes
 * them after every stage and a resumed run reads them back. Pure.
 */
import type { JsonValue } from './json-value.js';

/** A run's LLM usage so far. Counts are in tokens. */
export interface UsageTotals {
  /** All input tokens, cached ones included. */
  readonly inputTokens: number;
  /** All output tokens, reasoning ones included. */
  readonly outputTokens: number;
  /** Input tokens read from a prompt cache. */
  readonly cachedInputTokens: number;
  /** Reasoning tokens. */
  readonly reasoningTokens: number;
  /** Input plus output tokens. */
  readonly totalTokens: number;
  /** USD of the calls with a known cost (priced by the backend's price table, or reported by an agent CLI). */
  readonly costUsd: number;
  /** False once a call's model had no price (its cost is `'unknown'`). */
  readonly costComplete: boolean;
}

/** No usage. */
export const ZERO_USAGE_TOTALS: UsageTotals = {
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
  costUsd: 0,
  costComplete: true,
};

/** The context keys of the run's totals (spec §5.1 context), written by the engine after every stage. */
export const USAGE_TOTAL_KEYS = {
  inputTokens: 'usage.total.input_tokens',
  outputTokens: 'usage.total.output_tokens',
  cachedInputTokens: 'usage.total.cached_input_tokens',
  reasoningTokens: 'usage.total.reasoning_tokens',
  totalTokens: 'usage.total.total_tokens',
  costUsd: 'usage.total.cost_usd',
  costComplete: 'usage.total.cost_complete',
} as const satisfies Record<keyof UsageTotals, string>;

/**
 * The key agent-CLI backends wrote their reported cost to before the engine kept the run's totals; a resumed older
 * run's value counts into `costUsd` when read.
 */
export const LEGACY_AGENT_COST_KEY = 'cost.total.usd';

function amount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * The totals recorded in a context (`usage.total.*`, plus the legacy `cost.total.usd`), or undefined when it holds
 * none. `read` reads a context value.
 */
export function usageTotalsFromContext(read: (key: string) => unknown): UsageTotals | undefined {
  if (read(USAGE_TOTAL_KEYS.totalTokens) === undefined && read(LEGACY_AGENT_COST_KEY) === undefined) {
    return undefined;
  }
  return {
    inputTokens: amount(read(USAGE_TOTAL_KEYS.inputTokens)),
    outputTokens: amount(read(USAGE_TOTAL_KEYS.outputTokens)),
    cachedInputTokens: amount(read(USAGE_TOTAL_KEYS.cachedInputTokens)),
    reasoningTokens: amount(read(USAGE_TOTAL_KEYS.reasoningTokens)),
    totalTokens: amount(read(USAGE_TOTAL_KEYS.totalTokens)),
    costUsd: amount(read(USAGE_TOTAL_KEYS.costUsd)) + amount(read(LEGACY_AGENT_COST_KEY)),
    costComplete: read(USAGE_TOTAL_KEYS.costComplete) !== false,
  };
}

/** The `usage.total.*` context values of `totals`. */
export function usageTotalsToContext(totals: UsageTotals): Record<string, JsonValue> {
  return {
    [USAGE_TOTAL_KEYS.inputTokens]: totals.inputTokens,
    [USAGE_TOTAL_KEYS.outputTokens]: totals.outputTokens,
    [USAGE_TOTAL_KEYS.cachedInputTokens]: totals.cachedInputTokens,
    [USAGE_TOTAL_KEYS.reasoningTokens]: totals.reasoningTokens,
    [USAGE_TOTAL_KEYS.totalTokens]: totals.totalTokens,
    [USAGE_TOTAL_KEYS.costUsd]: totals.costUsd,
    [USAGE_TOTAL_KEYS.costComplete]: totals.costComplete,
  };
}
