/**
 * One run, one runner (docs/architecture.md "Checkpoint"): the lock a run holds while it executes, and the
 * record of who holds it. `RunStore.acquireLock` takes it; the file store keeps the lock as `run.lock/`
 * (proper-lockfile) and the holder record as `run.lock.json` in the run directory.
 */

/**
 * Who holds a run's lock (`run.lock.json` in a file store's run directory).
 *
 * The record is also where a runner lists what it must leave behind cleanly: `process_groups` holds the process-group
 * ids of commands its stages started (see {@link RunLock.setProcessGroups}). A runner that takes over the lock of a
 * dead holder ends those groups (SIGKILL) first.
 */
export interface RunLockHolder {
  /** Process id of the runner. */
  readonly pid: number;
  /** Host name of the runner (`os.hostname()`). */
  readonly host: string;
  /** When it took the lock (ISO-8601). */
  readonly since: string;
  /** Process-group ids of commands the runner's stages started and that may still be running. */
  readonly process_groups?: readonly number[];
}

/** A held run lock. */
export interface RunLock {
  /** The holder record as last written. */
  readonly holder: RunLockHolder;
  /**
   * Replaces the holder record's `process_groups` (the process groups of stage commands now running), so that a
   * runner taking over after a crash can end them. Pass an empty list once they have ended.
   */
  setProcessGroups(processGroupIds: readonly number[]): Promise<void>;
  /**
   * The process groups of a dead holder's stage commands that were still running when this lock took the run
   * over, and were ended then (SIGKILL); empty when the lock was free.
   */
  readonly endedProcessGroups?: readonly number[];
  /** Releases the lock and removes the holder record. Safe to call twice. */
  release(): Promise<void>;
}

/** Options of `RunStore.acquireLock`. */
export interface AcquireRunLockOptions {
  /** When the lock is taken (ISO-8601), from the run's clock. */
  readonly since: string;
}
