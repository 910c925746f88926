import { claimInterrupt } from '../claim-interrupt.js';
import type { CliIo } from '../cli-io.js';
import type { Colors } from '../colors.js';
import type { RunDisplay } from '../display/run-display.js';

/** Exit code of a run that was interrupted (Ctrl-C). */
export const EXIT_INTERRUPTED = 130;

/**
 * First Ctrl-C (or SIGTERM, or SIGHUP when the terminal closes): abort the running stage (its tool's whole process
 * group is ended); the engine stops and keeps the last checkpoint. Second: print the resume command and exit at once
 * with 130 (still-running process groups get SIGKILL on exit). Returns a function that removes the handlers.
 */
export function installInterruptHandlers(options: {
  readonly controller: AbortController;
  readonly display: RunDisplay;
  readonly io: CliIo;
  /** The resume command to print, asked when the second signal comes (the unused `--answer` values change). */
  readonly resumeCommand: () => string;
  readonly colors: Colors;
}): () => void {
  let count = 0;
  const onSignal = claimInterrupt((signal: NodeJS.Signals): void => {
    count += 1;
    if (count === 1) {
      options.display.notice(
        options.colors.yellow(
          `${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping the running stage… (press Ctrl-C again to exit at once)`,
        ),
      );
      options.controller.abort(new Error(`interrupted by ${signal === 'SIGINT' ? 'Ctrl-C' : signal}`));
      return;
    }
    options.display.pause();
    options.io.stderr.write(`\nExited at once. Resume with: ${options.resumeCommand()}\n`);
    process.exit(EXIT_INTERRUPTED);
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed terminal must not leave the stage's commands running under init (issue 20 §4).
  process.on('SIGHUP', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  };
}
