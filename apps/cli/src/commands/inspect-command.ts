import type { JsonValue } from '@attractor/engine';
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { formatTable } from '../display/format-table.js';
import { formatCost, formatElapsed, formatTokens, oneLine, stateText } from '../display/format-values.js';
import { stageName } from '../display/stage-name.js';
import { findParentRun } from '../inspect/find-parent-run.js';
import { type RunSummary, summarizeRun } from '../inspect/summarize-run.js';
import { displayPath } from '../load-pipeline.js';
import { readRunAnywhere } from '../shared/read-run-anywhere.js';
import { queueHintOption, queueUrlOf, storeHintOption, storeUrlOf } from '../shared/shared-locations.js';

/** Options of `attractor inspect`. */
export interface InspectCommandOptions {
  readonly runDir: string;
  /** One JSON document ({@link RunSummary}) on stdout. */
  readonly json?: boolean;
  /** The shared run store (`--store`; default `ATTRACTOR_STORE_URL`): `runDir` may then be a run id. */
  readonly store?: string;
  /** The run queue (`--queue`; default `ATTRACTOR_QUEUE_URL`): a run of the store it dead-lettered shows `dead`. */
  readonly queue?: string;
  readonly io: CliIo;
}

/**
 * `attractor inspect <run-dir>`: a table of the run's stages (visits, status, attempts, duration, tokens, failure
 * reason, the latest outcome's notes on one line of at most 60 characters; `--json` has them in full), the route taken, and the run's state. For the child run of a sub-pipeline or manager loop node, the
 * resume hint names the parent run (the one `attractor run` started), since only that one can be resumed. For a
 * fork, it names the source run, the stage the fork started after, and the stages it inherited completed. Exit
 * code 0 (the run's own outcome does not change it).
 *
 * @throws {CliError} when the directory is missing or is not a run directory.
 */
export async function inspectCommand(options: InspectCommandOptions): Promise<number> {
  const { io } = options;
  const run = await readRunAnywhere(options.runDir, {
    io,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.queue === undefined ? {} : { queue: options.queue }),
  });
  const summary = summarizeRun(run);
  if (options.json === true) {
    io.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  }
  const inStore = summary.logsRoot.includes('#');
  const parentRun = inStore ? undefined : await findParentRun(summary.logsRoot);
  // A run of a store directory without a queue resumes from that directory (`run --store`); otherwise through the
  // queue (a PostgreSQL store is written by workers only).
  const storeUrl = storeUrlOf(options.store, io);
  const resumesFromStore =
    queueUrlOf(options.queue, io) === undefined &&
    storeUrl !== undefined &&
    !/^postgres(ql)?:\/\//.test(storeUrl);
  const sharedRun = inStore
    ? {
        queueOption: resumesFromStore
          ? storeHintOption(options.store, io)
          : queueHintOption(options.queue, io),
        storeOption: storeHintOption(options.store, io),
      }
    : undefined;
  io.stdout.write(
    `${formatSummaryText(summary, createColors(io.color), io.cwd, cliCommand(io.env), parentRun, sharedRun)}\n`,
  );
  return 0;
}

/**
 * The human-readable text of `attractor inspect`. `command` spells the CLI in the resume hint (see `cliCommand`;
 * default `attractor`). `parentRun`, for a child run, is the run directory that resumes it (see `findParentRun`):
 * the text names it and the resume hint resumes it. Default: none, the run resumes itself. `sharedRun`, for a run
 * read from the shared store: the hints name runs by id (the source of a fork and the continuation of a
 * `loop_restart` too), as `resume`, `answer` and `inspect` take them, followed by `queueOption` (see
 * `queueHintOption`) or, for `inspect`, `storeOption` (see `storeHintOption`; default `''`). Default: a run directory.
 */
export function formatSummaryText(
  summary: RunSummary,
  colors: ReturnType<typeof createColors>,
  cwd: string,
  command = 'attractor',
  parentRun?: string,
  sharedRun?: { readonly queueOption: string; readonly storeOption?: string },
): string {
  const lines: string[] = [];
  lines.push(`${colors.bold(summary.graphName)}  ${stateText(summary.state, colors)}`);
  if (summary.goal !== '') lines.push(`goal:     ${summary.goal}`);
  lines.push(`run:      ${displayPath(summary.logsRoot, cwd)}`);
  if (parentRun !== undefined) lines.push(`parent:   ${displayPath(parentRun, cwd)} (this is a child run)`);
  const origin = summary.forkedFrom;
  if (origin !== undefined) {
    const inherited = summary.inheritedStages ?? [];
    lines.push(
      `forked:   from ${sharedRun === undefined ? displayPath(origin.logsRoot, cwd) : origin.runId} after ${origin.node}@${origin.visit}${inherited.length === 0 ? '' : ` (inherited completed: ${inherited.join(', ')})`}`,
    );
  }
  if (summary.sourcePath !== undefined) lines.push(`pipeline: ${displayPath(summary.sourcePath, cwd)}`);
  lines.push(`workdir:  ${displayPath(summary.workdir, cwd)}`);
  lines.push(`started:  ${summary.startedAt}`);
  if (summary.wallTimeMs > 0) {
    // Wall time, as the web UI shows it; the time its invocations executed as well when gates or stops add to it (of
    // a live run, the invocation under way has no time yet).
    const goingOn = summary.state === 'running' || summary.state === 'waiting' ? ' so far' : '';
    const executed =
      !summary.live && summary.wallTimeMs - summary.durationMs >= 1000
        ? colors.dim(
            ` (executing ${formatElapsed(summary.durationMs)}; the rest waiting at gates or stopped)`,
          )
        : '';
    lines.push(`duration: ${formatElapsed(summary.wallTimeMs)}${goingOn}${executed}`);
  }
  if (summary.inputTokens + summary.outputTokens > 0) {
    const details = [
      ...(summary.cachedInputTokens > 0 ? [`${formatTokens(summary.cachedInputTokens)} cached`] : []),
      ...(summary.reasoningTokens > 0 ? [`${formatTokens(summary.reasoningTokens)} reasoning`] : []),
    ];
    lines.push(
      `tokens:   ${formatTokens(summary.inputTokens)} in, ${formatTokens(summary.outputTokens)} out${details.length === 0 ? '' : ` (${details.join(', ')})`}`,
    );
    lines.push(`cost:     ${formatCost(summary.costUsd, summary.costUnknown)}`);
  }
  if (summary.failureReason !== undefined) lines.push(`reason:   ${colors.red(summary.failureReason)}`);
  if (summary.inputs !== undefined) lines.push(...jsonLines('inputs:   ', summary.inputs));
  if (summary.output !== undefined) lines.push(...jsonLines('output:   ', summary.output));
  lines.push('');
  const header = [
    'stage',
    'visits',
    'status',
    'attempts',
    'duration',
    'tokens',
    'cost',
    'failure',
    'notes',
  ].map((cell) => colors.bold(cell));
  const rows = summary.stages.map((stage) => [
    `${'  '.repeat(stage.branchPath.length)}${stageName(stage)}`,
    String(stage.visits),
    stateText(stage.state, colors),
    String(stage.attempts),
    stage.durationMs > 0 ? formatElapsed(stage.durationMs) : '-',
    stage.inputTokens + stage.outputTokens > 0 ? formatTokens(stage.inputTokens + stage.outputTokens) : '-',
    stage.inputTokens + stage.outputTokens > 0 ? formatCost(stage.costUsd, stage.costUnknown) : '-',
    stage.failureReason === undefined ? '' : colors.red(oneLine(stage.failureReason, 80)),
    stage.notes === undefined ? '' : colors.dim(oneLine(stage.notes, 60)),
  ]);
  lines.push(rows.length === 0 ? colors.dim('(no stage has started)') : formatTable([header, ...rows]));
  lines.push('');
  lines.push(`route: ${summary.route.length === 0 ? colors.dim('(none)') : summary.route.join(' → ')}`);
  if (summary.state === 'restarted' && summary.restartedTo !== undefined && sharedRun !== undefined) {
    // The store keeps the continuation as a run of its own (the summary names it by id), and the queue knows the
    // chain by the run it started (the engine names restarts `<run id>-restart-<n>`).
    const continued = summary.restartedTo;
    const queued = summary.runId.replace(/-restart-\d+$/, '');
    lines.push(
      `continued: ${continued}  (a loop_restart edge restarted the run there; ${command} inspect ${continued}${sharedRun.storeOption ?? ''}, or ${command} resume ${queued}${sharedRun.queueOption})`,
    );
  } else if (summary.state === 'restarted' && summary.restartedTo !== undefined) {
    const continued = displayPath(summary.restartedTo, cwd);
    lines.push(
      `continued: ${continued}  (a loop_restart edge restarted the run there; ${command} inspect ${continued}, or ${command} resume either directory)`,
    );
  } else if (summary.live) {
    lines.push(
      summary.state === 'waiting'
        ? `waiting: at gate ${summary.stages.find((stage) => stage.state === 'waiting')?.nodeId ?? '?'}  (a live process runs it: answer there, in its terminal or its server's web UI)`
        : `running: in a live process`,
    );
  } else if (summary.state === 'waiting') {
    lines.push(
      `waiting: at gate ${summary.nextNode ?? '?'}  (a worker suspended it; answer with: ${command} answer ${summary.runId} <key>${sharedRun?.queueOption ?? ''})`,
    );
  } else if (summary.state !== 'success' && summary.nextNode !== undefined) {
    const resume =
      sharedRun === undefined
        ? `${command} resume ${displayPath(parentRun ?? summary.logsRoot, cwd)}`
        : `${command} resume ${summary.runId}${sharedRun.queueOption}`;
    lines.push(
      `next:  ${summary.nextNode}  (${parentRun === undefined ? resume : `a child run resumes with its parent: ${resume}`})`,
    );
  }
  return lines.join('\n');
}

/** `label` then one `key: value` line per entry (values as JSON, strings as they are), indented under the first. */
function jsonLines(label: string, values: Readonly<Record<string, JsonValue>>): string[] {
  const entries = Object.entries(values);
  if (entries.length === 0) return [`${label}{}`];
  return entries.map(
    ([key, value], index) =>
      `${index === 0 ? label : ' '.repeat(label.length)}${key} = ${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
}
