import type { PipelineEvent } from '@attractor/engine';
import type { TextOutput } from '../cli-io.js';
import type { Colors } from '../colors.js';
import { formatEvent, type StageTally, stageKey } from './format-event.js';
import { formatFinish, noteShownReason } from './format-finish.js';
import type { RunDisplay, RunFinish, Verbosity } from './run-display.js';

/**
 * The display when stdout is not a terminal (or with `--quiet`): one plain line per event, then the summary.
 */
export function createLineDisplay(options: {
  readonly stdout: TextOutput;
  readonly colors: Colors;
  readonly verbosity: Verbosity;
}): RunDisplay {
  const { stdout, colors, verbosity } = options;
  const tallies = new Map<string, StageTally>();
  const shownReasons = new Set<string>();
  return {
    onEvent(event: PipelineEvent) {
      const tally = updateTally(tallies, event);
      const line = formatEvent(event, {
        colors,
        verbosity,
        live: false,
        ...(tally === undefined ? {} : { tally }),
      });
      if (line !== undefined) stdout.write(`${line}\n`);
      noteShownReason(shownReasons, event, line !== undefined);
    },
    pause() {},
    resume() {},
    notice(text: string) {
      stdout.write(`${text}\n`);
    },
    finish(finish: RunFinish) {
      stdout.write(`${formatFinish(finish, colors, shownReasons)}\n`);
    },
  };
}

/**
 * Counts attempts and tokens per stage. Returns the stage's tally on `stage.completed` (and forgets it, so the
 * next visit starts from zero).
 */
export function updateTally(tallies: Map<string, StageTally>, event: PipelineEvent): StageTally | undefined {
  if (event.type !== 'stage.started' && event.type !== 'agent.usage' && event.type !== 'stage.completed') {
    return undefined;
  }
  const key = stageKey(event);
  let tally = tallies.get(key);
  if (tally === undefined) {
    tally = { attempts: 0, inputTokens: 0, outputTokens: 0 };
    tallies.set(key, tally);
  }
  if (event.type === 'stage.started') tally.attempts += 1;
  if (event.type === 'agent.usage') {
    tally.inputTokens += event.inputTokens;
    tally.outputTokens += event.outputTokens;
  }
  if (event.type === 'stage.completed') {
    tallies.delete(key);
    return tally;
  }
  return undefined;
}
