import type { PipelineEvent, PipelineStartedEvent } from '@attractor/engine';
import type { Colors } from '../colors.js';
import { firstLine, formatElapsed, formatTokens, oneLine, stateIcon } from './format-values.js';
import type { Verbosity } from './run-display.js';
import { stageName } from './stage-name.js';

/** Per-stage facts gathered across events (attempts, tokens) to print on the stage's completion line. */
export interface StageTally {
  attempts: number;
  inputTokens: number;
  outputTokens: number;
}

/** A key that identifies a stage within its branch. */
export function stageKey(event: {
  readonly nodeId: string;
  readonly branchPath?: readonly string[];
}): string {
  return `${(event.branchPath ?? []).join('/')}\u0001${event.nodeId}`;
}

/** Two spaces per branch level. */
export function indentOf(event: { readonly branchPath?: readonly string[] }): string {
  return '  '.repeat(event.branchPath?.length ?? 0);
}

/**
 * The line printed for an event, or undefined when the event prints nothing at this verbosity. `live` is true for
 * the terminal display, which shows running stages in its live area instead of printing `stage.started`.
 */
export function formatEvent(
  event: PipelineEvent,
  options: {
    readonly colors: Colors;
    readonly verbosity: Verbosity;
    readonly live: boolean;
    readonly tally?: StageTally;
  },
): string | undefined {
  const { colors, verbosity } = options;
  const indent = indentOf(event);
  const verbose = verbosity === 'verbose';
  // --quiet keeps warnings and errors (its help says so): a stage's warn or error log still prints.
  if (
    verbosity === 'quiet' &&
    !(event.type === 'stage.log' && (event.level === 'warn' || event.level === 'error'))
  )
    return undefined;
  switch (event.type) {
    case 'pipeline.started':
      if (event.branchPath !== undefined)
        return `${indent}${colors.cyan('▶')} child pipeline ${colors.bold(event.name)}`;
      return `${colors.cyan('▶')} ${colors.bold(event.name)}${event.goal === '' ? '' : ` — ${event.goal}`}${startNote(event, colors)}`;
    case 'stage.started':
      if (options.live) return undefined;
      return `${indent}${colors.cyan('…')} ${stageName(event)} ${colors.dim(`${event.label === event.nodeId ? '' : `${event.label} `}(${event.handlerType}${event.attempt > 1 ? `, attempt ${event.attempt}` : ''})`)}`;
    case 'stage.completed': {
      const parts = [formatElapsed(event.durationMs)];
      const tally = options.tally;
      if (tally !== undefined && tally.attempts > 1) parts.push(`${tally.attempts} attempts`);
      if (event.visit > 1) parts.push(`visit ${event.visit}`);
      if (tally !== undefined && tally.inputTokens + tally.outputTokens > 0) {
        parts.push(`${formatTokens(tally.inputTokens + tally.outputTokens)} tokens`);
      }
      const outcome =
        event.status === 'success'
          ? ''
          : ` ${event.status === 'fail' ? colors.red(event.status) : colors.yellow(event.status)}`;
      const reason =
        event.failureReason === undefined
          ? ''
          : ` ${colors.red('—')} ${formatReason(event.failureReason, colors)}`;
      const label = event.preferredLabel === undefined ? '' : colors.dim(` → ${event.preferredLabel}`);
      return `${indent}${stateIcon(event.status, colors)} ${stageName(event)}${outcome}${label} ${colors.dim(parts.join(' · '))}${reason}`;
    }
    case 'stage.failed':
      if (!event.willRetry) return undefined;
      return `${indent}${colors.yellow('↻')} ${stageName(event)} attempt ${event.attempt} failed: ${formatReason(event.error, colors)} ${colors.dim('— retrying')}`;
    case 'stage.retrying':
      return verbose
        ? `${indent}${colors.dim(`  next attempt of ${stageName(event)} in ${formatElapsed(event.delayMs)}`)}`
        : undefined;
    case 'parallel.started':
      return `${indent}${colors.cyan('⑂')} ${event.nodeId}: ${event.branchCount} branches in parallel`;
    case 'parallel.branch.started':
      return options.live && !verbose
        ? undefined
        : `${indent}  ${colors.dim(`branch ${event.branch} started`)}`;
    case 'parallel.branch.completed':
      return `${indent}  ${stateIcon(event.status, colors)} ${colors.dim(`branch ${event.branch}: ${event.status} in ${formatElapsed(event.durationMs)}`)}`;
    case 'parallel.completed':
      return `${indent}${colors.cyan('⑃')} ${event.nodeId}: ${event.successCount} succeeded, ${event.failureCount} failed ${colors.dim(formatElapsed(event.durationMs))}`;
    case 'foreach.started':
      return `${indent}${colors.cyan('⟳')} ${event.nodeId}: ${event.itemCount} items, ${event.mode}${event.keptCount === 0 ? '' : colors.dim(` (${event.keptCount} kept from before)`)}`;
    case 'foreach.item.started':
      return options.live && !verbose ? undefined : `${indent}  ${colors.dim(`item ${event.index} started`)}`;
    case 'foreach.item.completed':
      if (event.kept === true && !verbose) return undefined;
      return `${indent}  ${stateIcon(event.status, colors)} ${colors.dim(`item ${event.index}: ${event.status}${event.kept === true ? ' (kept)' : ` in ${formatElapsed(event.durationMs)}`}`)}${event.failureReason === undefined ? '' : ` ${colors.red('—')} ${formatReason(event.failureReason, colors)}`}`;
    case 'foreach.completed':
      return `${indent}${colors.cyan('⟲')} ${event.nodeId}: ${event.successCount} succeeded, ${event.failureCount} failed${event.notStartedCount === 0 ? '' : `, ${event.notStartedCount} not started`} ${colors.dim(formatElapsed(event.durationMs))}`;
    case 'interview.started':
      return options.live
        ? undefined
        : `${indent}${colors.magenta('?')} ${event.question.text} ${colors.dim(`(${event.stage})`)}`;
    case 'interview.completed':
      return `${indent}${colors.magenta('✎')} ${event.question.stage}: answered ${colors.bold(answerText(event.answer))}`;
    case 'interview.timeout':
      return `${indent}${colors.yellow('⏱')} ${event.stage}: no answer after ${formatElapsed(event.durationMs)}, using ${colors.bold(answerText(event.answer))}`;
    case 'checkpoint.saved':
      return verbose
        ? `${indent}${colors.dim(`checkpoint after ${event.nodeId}${event.nextNodeId === undefined ? '' : ` → next ${event.nextNodeId}`}`)}`
        : undefined;
    case 'pipeline.restarted':
      return `${colors.cyan('↺')} loop restart at ${event.targetNodeId}: continuing in ${event.newLogsRoot}`;
    case 'agent.text':
      return verbose && !event.delta
        ? `${indent}  ${colors.dim(`${stageName(event)}: ${oneLine(event.text, 200)}`)}`
        : undefined;
    case 'agent.session.started':
      return verbose
        ? `${indent}  ${colors.dim(`${stageName(event)}: ${event.agent} session ${event.sessionId}${event.resumed ? ' (resumed)' : ''}`)}`
        : undefined;
    case 'agent.tool_call.started':
      return verbose
        ? `${indent}  ${colors.dim(`${stageName(event)} → ${event.toolName} ${oneLine(JSON.stringify(event.arguments), 120)}`)}`
        : undefined;
    case 'agent.tool_call.completed':
      return verbose && event.isError
        ? `${indent}  ${colors.red(`${stageName(event)} ✖ ${event.toolName}: ${oneLine(event.output, 160)}`)}`
        : undefined;
    case 'stage.log':
      if (event.level === 'warn' || event.level === 'error') {
        const paint = event.level === 'error' ? colors.red : colors.yellow;
        return `${indent}  ${paint(`${stageName(event)}: ${oneLine(event.message, 200)}`)}`;
      }
      return verbose
        ? `${indent}  ${colors.dim(`${stageName(event)}: ${oneLine(event.message, 200)}`)}`
        : undefined;
    default:
      return undefined;
  }
}

/**
 * A failure reason on a stage line: its whole first line in red (the completion line prefixes it with `—`), and
 * `(+N more lines)` when the reason goes on. The full text is in the run directory (`events.jsonl`, the stage's
 * `status.json`) and, for the reason a run failed, in the finish summary.
 */
function formatReason(reason: string, colors: Colors): string {
  const { line, moreLines } = firstLine(reason);
  const more =
    moreLines === 0 ? '' : ` ${colors.dim(`(+${moreLines} more line${moreLines === 1 ? '' : 's'})`)}`;
  return `${colors.red(line)}${more}`;
}

function answerText(answer: {
  readonly value: string;
  readonly selectedOption?: { readonly label: string };
  readonly text?: string;
}): string {
  if (answer.selectedOption !== undefined) return answer.selectedOption.label;
  return answer.text ?? answer.value;
}

/** How a run's start is noted: `(forked from <run> at <node>@<visit>)`, `(resumed at <node>)`, or nothing. */
function startNote(event: PipelineStartedEvent, colors: Colors): string {
  if (event.forkedFrom !== undefined) {
    const origin = event.forkedFrom;
    return colors.dim(` (forked from ${origin.runId} at ${origin.node}@${origin.visit})`);
  }
  return event.resumed ? colors.dim(` (resumed at ${event.startNodeId})`) : '';
}
