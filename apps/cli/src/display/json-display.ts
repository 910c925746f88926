import type { PipelineEvent } from '@attractor/engine';
import type { TextOutput } from '../cli-io.js';
import type { Colors } from '../colors.js';
import { formatFinish } from './format-finish.js';
import type { RunDisplay, RunFinish } from './run-display.js';

/**
 * `--json`: every event as one JSON line on stdout and nothing else there; notices and the resume hint go to
 * stderr.
 */
export function createJsonDisplay(options: {
  readonly stdout: TextOutput;
  readonly stderr: TextOutput;
  readonly colors: Colors;
}): RunDisplay {
  const { stdout, stderr, colors } = options;
  return {
    onEvent(event: PipelineEvent) {
      stdout.write(`${JSON.stringify(event)}\n`);
    },
    pause() {},
    resume() {},
    notice(text: string) {
      stderr.write(`${text}\n`);
    },
    finish(finish: RunFinish) {
      if (finish.status !== 'success') stderr.write(`${formatFinish(finish, colors)}\n`);
    },
  };
}
