/**
 * The Outcome of an agent stage (spec §5.2): what `report_outcome` said, a FAIL at the turn limit, or SUCCESS;
 * always with `last_response` and token usage in the context updates. Pure.
 */
import type { JsonValue, Outcome } from '@attractor/engine';
import type { ReportedOutcome } from './agent-tools.js';
import type { TokenUsage } from './price-table.js';

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
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}

/**
 * The usage context keys of a stage (spec §5.1 context, read by `inspect`):
 * `usage.<node>.input_tokens|output_tokens|cached_input_tokens|reasoning_tokens|total_tokens|cost_usd` for this
 * attempt (`cost_usd` is `"unknown"` for a model without a price). The run's totals (`usage.total.*`, read by
 * budgets and the run summary) are the engine's: it counts the `agent.usage` event of every model call.
 */
export function usageContextUpdates(
  nodeId: string,
  usage: TokenUsage,
  costUsd: number | 'unknown',
): Record<string, JsonValue> {
  return {
    [`usage.${nodeId}.input_tokens`]: usage.inputTokens,
    [`usage.${nodeId}.output_tokens`]: usage.outputTokens,
    [`usage.${nodeId}.cached_input_tokens`]: usage.cachedInputTokens,
    [`usage.${nodeId}.reasoning_tokens`]: usage.reasoningTokens,
    [`usage.${nodeId}.total_tokens`]: usage.totalTokens,
    [`usage.${nodeId}.cost_usd`]: costUsd,
  };
}

/** Builds the stage's Outcome. `last_response` holds the reply's first 200 characters (spec §4.5). */
export function buildStageOutcome(options: BuildStageOutcomeOptions): Outcome {
  const { reported, text } = options;
  const contextUpdates: Record<string, JsonValue> = {
    last_response: truncate(text, 200),
    ...(reported?.contextUpdates ?? {}),
    ...usageContextUpdates(options.nodeId, options.usage, options.costUsd),
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
