/**
 * Keeps the CLI alive when the reader of its output goes away (`attractor run x.dot | head -1`).
 */

/** A stream whose `error` events can be listened to: `process.stdout` / `process.stderr`. */
export interface ErrorEmittingOutput {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Makes a broken pipe on `stream` (`EPIPE`: the reading end was closed, e.g. by `head -1`) harmless: the error is
 * dropped instead of crashing the process with an unhandled `'error'` event, and the stream, which Node destroys on
 * that error, discards whatever is written to it afterwards. A run in progress therefore goes on to completion,
 * its run directory complete, and the process exits with the code it would have had. Any other stream error is
 * rethrown, as Node would do without a listener. Install it once per stream, at start-up.
 */
export function ignoreBrokenPipe(stream: ErrorEmittingOutput): void {
  stream.on('error', (error) => {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return;
    throw error;
  });
}
