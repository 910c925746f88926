/**
 * Injected time (CONTRIBUTING.md "API shape"): the engine never calls `Date.now()` or `setTimeout` itself, so
 * tests can use `createTestClock()` from `@attractor/engine/test` and retry backoff never really sleeps in
 * tests.
 */

/** A source of time and delays. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds. Rejects with the signal's reason when `signal` aborts first (also when it
   * is already aborted).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now()` and a timer. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
