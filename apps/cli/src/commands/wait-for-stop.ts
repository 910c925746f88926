/**
 * How the long-running commands (`serve`, `mcp`) learn to stop: an abort signal (tests), else SIGINT, SIGTERM or
 * SIGHUP of this process.
 */
import { claimInterrupt } from '../claim-interrupt.js';

/** Resolves when `signal` aborts or, without one, at the first SIGINT, SIGTERM or SIGHUP. */
export function waitForStop(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolveStop) => {
    if (signal !== undefined) {
      if (signal.aborted) resolveStop();
      else signal.addEventListener('abort', () => resolveStop(), { once: true });
      return;
    }
    const onSignal = claimInterrupt(() => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
      resolveStop();
    });
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
  });
}
