import type { Colors } from '../colors.js';
import { formatCost, formatElapsed, formatTokens } from './format-values.js';
import type { RunFinish } from './run-display.js';

/** The final summary of `run` / `resume`: status, duration, run directory, and how to resume after a failure. */
export function formatFinish(finish: RunFinish, colors: Colors): string {
  const lines: string[] = [];
  const duration = formatElapsed(finish.durationMs);
  const count = (stages: number): string => `${stages} stage${stages === 1 ? '' : 's'}`;
  // A resume says what this leg did and what the whole run did: its duration above is only this leg's.
  const stages =
    finish.resumed === undefined
      ? count(finish.completedNodes.length)
      : `${count(finish.resumed.stagesThisTime)} this time; whole run: ${count(finish.resumed.stagesInRun)}, ${formatElapsed(finish.resumed.runDurationMs)}`;
  if (finish.status === 'success') {
    lines.push(
      `${colors.green('✔')} ${colors.bold('Pipeline succeeded')} in ${duration} ${colors.dim(`(${stages})`)}`,
    );
  } else if (finish.status === 'fail') {
    lines.push(
      `${colors.red('✖')} ${colors.bold('Pipeline failed')} after ${duration}: ${colors.red(finish.failureReason ?? 'unknown reason')}`,
    );
  } else {
    lines.push(
      `${colors.yellow('■')} ${colors.bold('Interrupted')} after ${duration}; the last checkpoint is kept.`,
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
  return lines.join('\n');
}
