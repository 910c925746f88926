/**
 * The `full`-fidelity sessions of a backend (spec §5.4), keyed by run and thread key: a backend reused across runs
 * never carries one run's history into another, and it keeps the sessions of the most recent runs only.
 */

/** Runs whose sessions a backend keeps. Default of {@link createSessionStore}. */
export const MAX_RUNS_WITH_SESSIONS = 16;

/** Sessions by run and thread key. */
export interface SessionStore<TValue> {
  get(run: string, threadKey: string): TValue | undefined;
  /** Stores a session; the run becomes the most recent one, and the least recent run past the limit is dropped. */
  set(run: string, threadKey: string, value: TValue): void;
  /** Runs with sessions, least recent first. */
  runs(): readonly string[];
}

/** Creates a {@link SessionStore} holding the sessions of at most `maxRuns` runs (default 16). */
export function createSessionStore<TValue>(maxRuns = MAX_RUNS_WITH_SESSIONS): SessionStore<TValue> {
  // A Map iterates in insertion order: re-inserting a run on use makes the first key the least recent run.
  const byRun = new Map<string, Map<string, TValue>>();
  return {
    get: (run, threadKey) => byRun.get(run)?.get(threadKey),
    set(run, threadKey, value) {
      const threads = byRun.get(run) ?? new Map<string, TValue>();
      byRun.delete(run);
      byRun.set(run, threads);
      threads.set(threadKey, value);
      while (byRun.size > maxRuns) {
        const oldest = byRun.keys().next().value;
        if (oldest === undefined) break;
        byRun.delete(oldest);
      }
    },
    runs: () => [...byRun.keys()],
  };
}
