/**
 * A controllable {@link Clock} for tests: no real waiting.
 */
import type { Clock } from '../clock.js';

/** Options of {@link createTestClock}. */
export interface TestClockOptions {
  /** Initial time, in ms since the epoch. Default: `Date.UTC(2026, 0, 1)`. */
  readonly startMs?: number;
  /**
   * When true (default), `sleep(ms)` advances the time by `ms` and resolves at once (after a microtask), so retry
   * backoff costs nothing. When false, sleeps stay pending until `advance()` moves time past their deadline.
   */
  readonly autoAdvance?: boolean;
}

/** A {@link Clock} whose time moves only when told to, and which records every sleep. */
export interface TestClock extends Clock {
  /** Every `sleep` duration requested, in ms, in call order. */
  readonly sleeps: number[];
  /** Moves time forward by `ms` and resolves the sleeps that are due (manual mode). */
  advance(ms: number): Promise<void>;
  /** Number of sleeps still pending (manual mode). */
  pendingSleeps(): number;
}

/**
 * Creates a {@link TestClock}.
 *
 * @example
 * const clock = createTestClock();
 * await runPipeline({ graph, registry, logsRoot, clock });
 * expect(clock.sleeps).toEqual([200, 400]);
 */
export function createTestClock(options: TestClockOptions = {}): TestClock {
  let now = options.startMs ?? Date.UTC(2026, 0, 1);
  const autoAdvance = options.autoAdvance ?? true;
  const sleeps: number[] = [];
  let pending: { dueMs: number; resolve: () => void; reject: (reason: unknown) => void }[] = [];

  return {
    sleeps,
    now: () => now,
    sleep(ms, signal) {
      sleeps.push(ms);
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (autoAdvance) {
        now += Math.max(0, ms);
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const entry = { dueMs: now + Math.max(0, ms), resolve, reject };
        pending.push(entry);
        signal?.addEventListener(
          'abort',
          () => {
            pending = pending.filter((item) => item !== entry);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    async advance(ms) {
      now += ms;
      const due = pending.filter((item) => item.dueMs <= now);
      pending = pending.filter((item) => item.dueMs > now);
      for (const item of due) item.resolve();
      await Promise.resolve();
    },
    pendingSleeps: () => pending.length,
  };
}
