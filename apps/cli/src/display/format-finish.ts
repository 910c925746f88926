import type { PipelineEvent } from '@attractor/engine';
import type { Colors } from '../colors.js';
import { firstLine, formatCost, formatElapsed, formatTokens } from './format-values.js';
import type { RunFinish } from './run-display.js';

/**
 * Remembers the failure reason a printed `stage.completed` line showed whole (one line), so that the final summary
 * does not print it again.
 */
export function noteShownReason(shown: Set<string>, event: PipelineEvent, printed: boolean): void {
  if (!printed || event.type !== 'stage.completed' || event.failureReason === undefined) return;
  if (firstLine(event.failureReason).moreLines === 0) shown.add(event.failureReason);
}

/**
 * The run's failure reason for the final summary: as it is, or, when a stage line above already showed it (`shown`),
 * only what it adds to that (`node "write" failed`) with `(reason above)`, so that an error is printed once.
 */
function finalReason(reason: string, shown: ReadonlySet<string>): string {
  for (const stageReason of shown) {
    if (reason === stageReason) return '(reason above)';
    if (reason.endsWith(`: ${stageReason}`)) {
      return `${reason.slice(0, reason.length - stageReason.length - 2)} (reason above)`;
    }
  }
  return reason;
}

/**
 * The final summary of `run` / `resume`: status, duration, run directory, and how to resume after a failure (with
 * what resuming does, `finish.resumeNote`).
 * `shown` holds the failure reasons stage lines printed whole (see {@link noteShownReason}); the summary refers to
 * them instead of printing them again. Default: none (the summary prints the whole reason).
 */
export function formatFinish(
  finish: RunFinish,
  colors: Colors,
  shown: ReadonlySet<string> = new Set(),
): string {
  const lines: string[] = [];
  const duration = formatElapsed(finish.durationMs);
  const count = (stages: number): string => `${stages} stage${stages === 1 ? '' : 's'}`;
  // A resume says what this leg did and what the whole run did: its duration above is only this leg's. A fork says
  // what it ran and its whole route, whose first stages ran in the source run.
  const stages =
    finish.resumed !== undefined
      ? `${count(finish.resumed.stagesThisTime)} this time; whole run: ${count(finish.resumed.stagesInRun)}, ${formatElapsed(finish.resumed.runDurationMs)}`
      : finish.forked !== undefined
        ? `${count(finish.forked.stagesThisTime)} this time; whole route: ${count(finish.forked.stagesInRoute)}, ${finish.forked.stagesInRoute - finish.forked.stagesThisTime} inherited from the source run`
        : count(finish.completedNodes.length);
  if (finish.status === 'success') {
    lines.push(
      `${colors.green('✔')} ${colors.bold('Pipeline succeeded')} in ${duration} ${colors.dim(`(${stages})`)}`,
    );
  } else if (finish.status === 'fail') {
    lines.push(
      `${colors.red('✖')} ${colors.bold('Pipeline failed')} after ${duration}: ${colors.red(finalReason(finish.failureReason ?? 'unknown reason', shown))}`,
    );
  } else {
    // Ctrl-C or a signal says "interrupted by …"; `attractor cancel` (or another canceller) gives its own reason.
    const reason = finish.failureReason;
    const cancelled = reason !== undefined && !/^interrupted by /.test(reason) && reason !== 'cancelled';
    lines.push(
      `${colors.yellow('■')} ${colors.bold(cancelled ? 'Cancelled' : 'Interrupted')} after ${duration}${cancelled ? ` (${reason})` : ''}; the last checkpoint is kept.`,
    );
  }
  const usage = finish.usage;
  if (usage !== undefined) {
    const details = [
      `${formatTokens(usage.inputTokens)} in`,
      `${formatTokens(usage.outputTokens)} out`,
      ...(usage.cachedInputTokens > 0 ? [`${formatTokens(usage.cachedInputTokens)} cached`] : []),
      ...(usage.reasoningTokens > 0 ? [`${formatTokens(usage.reasoningTokens)} reasoning`] : []),
    ];
    lines.push(`  LLM usage:     ${details.join(', ')} · ${formatCost(usage.costUsd, !usage.costComplete)}`);
  }
  lines.push(`  run directory: ${finish.logsRoot}`);
  if (finish.output !== undefined)
    lines.push(`  output:        ${JSON.stringify(finish.output)} (output.json)`);
  if (finish.status !== 'success') lines.push(`  resume with:   ${colors.bold(finish.resumeCommand)}`);
  if (finish.status === 'fail' && finish.resumeNote !== undefined) {
    lines.push(`                 ${colors.dim(`(${finish.resumeNote})`)}`);
  }
  return lines.join('\n');
}
