import type { PipelineEvent } from '@attractor/engine';
import cliSpinners from 'cli-spinners';
import { createLogUpdate } from 'log-update';
import type { Colors } from '../colors.js';
import { formatEvent, indentOf, type StageTally, stageKey } from './format-event.js';
import { formatFinish, noteShownReason } from './format-finish.js';
import { formatElapsed, formatTokens } from './format-values.js';
import { updateTally } from './line-display.js';
import type { RunDisplay, RunFinish, Verbosity } from './run-display.js';
import { stageName } from './stage-name.js';

interface ActiveStage {
  readonly nodeId: string;
  /** The node id, with the index of each foreach item it runs in (`check [3]`). */
  readonly name: string;
  readonly label: string;
  readonly indent: string;
  readonly startedMs: number;
  attempt: number;
  note: string;
  /** With -v: the agent's reply streamed so far in the current model call (`agent.text` deltas). */
  streamed: string;
}

/** The last line of streamed text, at most `width` characters (its end). */
function streamTail(text: string, width: number): string {
  const line = text.trimEnd().split('\n').at(-1) ?? '';
  return line.length <= width ? line : `…${line.slice(line.length - width + 1)}`;
}

/**
 * The live display on a terminal: finished stages are printed for good (status, duration, attempts, tokens);
 * running stages sit in a live area below them, one line each with a spinner and the elapsed time, parallel
 * branches indented under their fan-out. {@link RunDisplay.pause} clears the live area so a human question can
 * be asked in place.
 */
export function createTtyDisplay(options: {
  readonly stdout: NodeJS.WriteStream;
  readonly colors: Colors;
  readonly verbosity: Verbosity;
  /** Current time in ms (injected for tests). Default: Date.now. */
  readonly now?: () => number;
}): RunDisplay {
  const { stdout, colors, verbosity } = options;
  const now = options.now ?? Date.now;
  const log = createLogUpdate(withTerminalSize(stdout), { showCursor: false });
  const spinner = cliSpinners.dots;
  const active = new Map<string, ActiveStage>();
  const shownReasons = new Set<string>();
  const tallies = new Map<string, StageTally>();
  let frame = 0;
  let paused = false;
  let timer: NodeJS.Timeout | undefined;

  const render = (): void => {
    if (paused) return;
    if (active.size === 0) {
      log.clear();
      return;
    }
    const symbol = colors.cyan(spinner.frames[frame % spinner.frames.length] ?? '-');
    const lines = [...active.entries()].map(([key, stage]) => {
      const tally = tallies.get(key);
      const tokens =
        tally !== undefined && tally.inputTokens + tally.outputTokens > 0
          ? ` · ${formatTokens(tally.inputTokens + tally.outputTokens)} tokens`
          : '';
      const attempt = stage.attempt > 1 ? ` · attempt ${stage.attempt}` : '';
      const label = stage.label === stage.nodeId ? '' : ` ${colors.dim(stage.label)}`;
      const line = `${stage.indent}${symbol} ${stage.name}${label} ${colors.dim(`${formatElapsed(now() - stage.startedMs)}${attempt}${tokens}`)}${stage.note === '' ? '' : colors.yellow(` ${stage.note}`)}`;
      return stage.streamed === ''
        ? line
        : `${line}\n${stage.indent}  ${colors.dim(streamTail(stage.streamed, Math.max(20, (stdout.columns || 100) - stage.indent.length - 4)))}`;
    });
    log(lines.join('\n'));
  };
  const tick = (): void => {
    frame += 1;
    render();
  };
  const syncTimer = (): void => {
    if (!paused && active.size > 0 && timer === undefined) {
      timer = setInterval(tick, spinner.interval);
      timer.unref();
    } else if ((paused || active.size === 0) && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const persist = (line: string): void => {
    if (paused) {
      stdout.write(`${line}\n`);
      return;
    }
    log.clear();
    stdout.write(`${line}\n`);
    render();
  };

  return {
    onEvent(event: PipelineEvent) {
      const tally = updateTally(tallies, event);
      if (event.type === 'stage.started') {
        const key = stageKey(event);
        const existing = active.get(key);
        if (existing !== undefined) {
          existing.attempt = event.attempt;
          existing.note = '';
        } else {
          active.set(key, {
            nodeId: event.nodeId,
            name: stageName(event),
            label: event.label,
            indent: indentOf(event),
            startedMs: now(),
            attempt: event.attempt,
            note: '',
            streamed: '',
          });
        }
      } else if (event.type === 'stage.completed') {
        active.delete(stageKey(event));
      } else if (event.type === 'agent.text' && verbosity === 'verbose') {
        // -v shows the reply as it streams; the whole message is printed for good when the model call ends.
        const stage = active.get(stageKey(event));
        if (stage !== undefined) stage.streamed = event.delta ? stage.streamed + event.text : '';
      } else if (event.type === 'stage.custom' && event.name === 'llm.retry') {
        const stage = active.get(stageKey(event));
        const data = event.data as { delayMs?: unknown; statusCode?: unknown };
        if (stage !== undefined && typeof data.delayMs === 'number') {
          stage.note = `${typeof data.statusCode === 'number' ? `HTTP ${data.statusCode}, ` : ''}retrying the model call in ${formatElapsed(data.delayMs)}`;
        }
      } else if (event.type === 'agent.usage') {
        const stage = active.get(stageKey(event));
        if (stage?.note.includes('retrying the model call')) stage.note = '';
      } else if (event.type === 'stage.retrying') {
        const stage = active.get(stageKey(event));
        if (stage !== undefined) stage.note = `retrying in ${formatElapsed(event.delayMs)}`;
      } else if (event.type === 'interview.started') {
        const stage = active.get(
          stageKey({
            nodeId: event.stage,
            ...(event.branchPath === undefined ? {} : { branchPath: event.branchPath }),
          }),
        );
        if (stage !== undefined) stage.note = 'waiting for an answer';
      } else if (event.type === 'interview.completed' || event.type === 'interview.timeout') {
        const stageId = event.type === 'interview.timeout' ? event.stage : event.question.stage;
        const stage = active.get(
          stageKey({
            nodeId: stageId,
            ...(event.branchPath === undefined ? {} : { branchPath: event.branchPath }),
          }),
        );
        if (stage !== undefined) stage.note = '';
      }
      const line = formatEvent(event, {
        colors,
        verbosity,
        live: true,
        ...(tally === undefined ? {} : { tally }),
      });
      if (line !== undefined) persist(line);
      else render();
      noteShownReason(shownReasons, event, line !== undefined);
      syncTimer();
    },
    pause() {
      if (paused) return;
      log.clear();
      paused = true;
      syncTimer();
    },
    resume() {
      if (!paused) return;
      paused = false;
      render();
      syncTimer();
    },
    notice(text: string) {
      persist(text);
    },
    finish(finish: RunFinish) {
      active.clear();
      paused = true;
      syncTimer();
      log.clear();
      log.done();
      stdout.write(`${formatFinish(finish, colors, shownReasons)}\n`);
    },
  };
}

/**
 * `stdout` as the live area sees it: a terminal that reports 0 columns or rows (a pty opened without a size, as
 * `script` makes one) counts as 80 × 24, not as zero wide (one character per line) or zero high (nothing shown).
 */
function withTerminalSize(stdout: NodeJS.WriteStream): NodeJS.WriteStream {
  return new Proxy(stdout, {
    get(target, key) {
      if (key === 'columns') return target.columns || 80;
      if (key === 'rows') return target.rows || 24;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
