/**
 * The Outcome of an agent stage (spec §5.2): what `report_outcome` said, a FAIL at the turn limit, or SUCCESS;
 * always with `last_response` and token usage in the context updates. Pure.
 */
import type { JsonValue, Outcome } from '@attractor/engine';
import type { ReportedOutcome } from './agent-tools.js';

/** Token counts of one stage attempt. */
export interface StageUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
}

/** Options of {@link buildStageOutcome}. */
export interface BuildStageOutcomeOptions {
  readonly nodeId: string;
  /** The final reply. */
  readonly text: string;
  readonly reported?: ReportedOutcome;
  /** The turn limit, when the loop stopped at it without finishing. */
  readonly turnLimitReached?: number;
  readonly usage: StageUsage;
  /** The running totals before this stage (`usage.total.*` of the context). */
  readonly previousTotals: StageUsage;
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}

/**
 * `usage.<node>.input_tokens|output_tokens|total_tokens` for this attempt and the running totals
 * `usage.total.*`.
 */
export function usageContextUpdates(
  nodeId: string,
  usage: StageUsage,
  previousTotals: StageUsage,
): Record<string, JsonValue> {
  return {
    [`usage.${nodeId}.input_tokens`]: usage.inputTokens,
    [`usage.${nodeId}.output_tokens`]: usage.outputTokens,
    [`usage.${nodeId}.total_tokens`]: usage.totalTokens,
    'usage.total.input_tokens': previousTotals.inputTokens + usage.inputTokens,
    'usage.total.output_tokens': previousTotals.outputTokens + usage.outputTokens,
    'usage.total.total_tokens': previousTotals.totalTokens + usage.totalTokens,
  };
}

/** Builds the stage's Outcome. `last_response` holds the reply's first 200 characters (spec §4.5). */
export function buildStageOutcome(options: BuildStageOutcomeOptions): Outcome {
  const { reported, text } = options;
  const contextUpdates: Record<string, JsonValue> = {
    last_response: truncate(text, 200),
    ...(reported?.contextUpdates ?? {}),
    ...usageContextUpdates(options.nodeId, options.usage, options.previousTotals),
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
