/**
 * `reasoning_effort` (spec §2.6, coding-agent-loop-spec §2.7) as each provider's option.
 */
import type { SharedV3ProviderOptions as ProviderOptions } from '@ai-sdk/provider';
import type { ReasoningEffort } from '@attractor/graph';

/** Thinking budgets for providers that take a token budget, in tokens. */
export const THINKING_BUDGET_TOKENS = { low: 2048, medium: 8192, high: 16384 } as const satisfies Record<
  ReasoningEffort,
  number
>;

/**
 * The provider options for a reasoning effort: `openai.reasoningEffort`; Anthropic extended thinking with a
 * budget (`anthropic.thinking`); Google `google.thinkingConfig.thinkingBudget`. Undefined for other providers.
 */
export function reasoningProviderOptions(
  provider: string,
  effort: ReasoningEffort,
): ProviderOptions | undefined {
  switch (provider) {
    case 'openai':
      return { openai: { reasoningEffort: effort } };
    case 'anthropic':
      return { anthropic: { thinking: { type: 'enabled', budgetTokens: THINKING_BUDGET_TOKENS[effort] } } };
    case 'google':
      return { google: { thinkingConfig: { thinkingBudget: THINKING_BUDGET_TOKENS[effort] } } };
    default:
      return undefined;
  }
}
