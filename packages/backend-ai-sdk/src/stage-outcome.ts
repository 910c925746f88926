/**
 * The Outcome of an agent stage (spec §5.2): what `report_outcome` said, a FAIL at the turn limit, or SUCCESS;
 * always with `last_response` and token usage in the context updates. Pure.
 */
import type { JsonValue, Outcome } from '@attractor/engine';
import type { ReportedOutcome } from './agent-tools.js';
import type { TokenUsage } from './price-table.js';

/** The run's usage so far, read from the context (`usage.total.*`). */
export interface UsageTotals {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly reasoningTokens: number;
  readonly totalTokens: number;
  /** USD of the stages with a known price. */
  readonly costUsd: number;
  /** False once a stage had a model without a price. */
  readonly costComplete: boolean;
}

/** Options of {@link buildStageOutcome}. */
export interface BuildStageOutcomeOptions {
  readonly nodeId: string;
  /** The final reply. */
  readonly text: string;
  readonly reported?: ReportedOutcome;
  /** The turn limit, when the loop stopped at it without finishing. */
  readonly turnLimitReached?: number;
  readonly usage: TokenUsage;
  /** The stage's cost in USD, or `'unknown'` for a model without a price. */
  readonly costUsd: number | 'unknown';
  /** The running totals before this stage (`usage.total.*` of the context). */
  readonly previousTotals: UsageTotals;
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}

/**
 * The usage context keys of a stage (spec §5.1 context, read by budgets, `inspect` and the run summary):
 * `usage.<node>.input_tokens|output_tokens|cached_input_tokens|reasoning_tokens|total_tokens|cost_usd` for this
 * attempt (`cost_usd` is `"unknown"` for a model without a price) and the running totals `usage.total.*`, where
 * `usage.total.cost_usd` sums the known costs and `usage.total.cost_complete` is false once one was unknown.
 */
export function usageContextUpdates(
  nodeId: string,
  usage: TokenUsage,
  costUsd: number | 'unknown',
  previous: UsageTotals,
): Record<string, JsonValue> {
  return {
    [`usage.${nodeId}.input_tokens`]: usage.inputTokens,
    [`usage.${nodeId}.output_tokens`]: usage.outputTokens,
    [`usage.${nodeId}.cached_input_tokens`]: usage.cachedInputTokens,
    [`usage.${nodeId}.reasoning_tokens`]: usage.reasoningTokens,
    [`usage.${nodeId}.total_tokens`]: usage.totalTokens,
    [`usage.${nodeId}.cost_usd`]: costUsd,
    'usage.total.input_tokens': previous.inputTokens + usage.inputTokens,
    'usage.total.output_tokens': previous.outputTokens + usage.outputTokens,
    'usage.total.cached_input_tokens': previous.cachedInputTokens + usage.cachedInputTokens,
    'usage.total.reasoning_tokens': previous.reasoningTokens + usage.reasoningTokens,
    'usage.total.total_tokens': previous.totalTokens + usage.totalTokens,
    'usage.total.cost_usd': previous.costUsd + (costUsd === 'unknown' ? 0 : costUsd),
    'usage.total.cost_complete': previous.costComplete && costUsd !== 'unknown',
  };
}

/** Builds the stage's Outcome. `last_response` holds the reply's first 200 characters (spec §4.5). */
export function buildStageOutcome(options: BuildStageOutcomeOptions): Outcome {
  const { reported, text } = options;
  const contextUpdates: Record<string, JsonValue> = {
    last_response: truncate(text, 200),
    ...(reported?.contextUpdates ?? {}),
    ...usageContextUpdates(options.nodeId, options.usage, options.costUsd, options.previousTotals),
  };
  if (reported !== undefined) {
    return {
      status: reported.outcome,
      contextUpdates,
      notes: reported.notes ?? (truncate(text, 500) || `Stage completed: ${options.nodeId}`),
      ...(reported.preferredLabel === undefined ? {} : { preferredLabel: reported.preferredLabel }),
      ...(reported.suggestedNextIds === undefined ? {} : { suggestedNextIds: reported.suggestedNextIds }),
      ...(reported.failureReason === undefined ? {} : { failureReason: reported.failureReason }),
    };
  }
  if (options.turnLimitReached !== undefined) {
    return {
      status: 'fail',
      failureReason: `The agent reached the turn limit (${options.turnLimitReached} model calls) before finishing. Raise maxTurns or split the stage.`,
      contextUpdates,
    };
  }
  return { status: 'success', notes: `Stage completed: ${options.nodeId}`, contextUpdates };
}
