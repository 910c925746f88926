import type { RunLockHolder } from '../run-lock.js';

const MARKER = Symbol.for('attractor.error.RunLockedError');

/**
 * Thrown (as a rejection) by `runPipeline` / `resumePipeline` when another live runner holds the run's lock (one run,
 * one runner, DESIGN.md "Checkpoint"). The message names the holder.
 */
export class RunLockedError extends Error {
  override readonly name = 'RunLockedError';
  readonly code = 'RUN_LOCKED';
  /** The run directory (or store key). */
  readonly logsRoot: string;
  /** Who holds the lock; undefined when the holder has not recorded itself yet. */
  readonly holder: RunLockHolder | undefined;
  /** Retryable: the holder may finish. */
  readonly retryable = true;
  readonly [MARKER] = true;

  constructor(options: { logsRoot: string; holder: RunLockHolder | undefined; cause?: unknown }) {
    const who =
      options.holder === undefined
        ? 'another process (it has not recorded itself yet)'
        : `process ${options.holder.pid} on host ${options.holder.host} since ${options.holder.since}`;
    super(
      `Run ${options.logsRoot} is being executed by ${who}. Wait for it to finish or stop it; a lock left by a killed process is taken over automatically.`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.logsRoot = options.logsRoot;
    this.holder = options.holder;
  }

  /** True for a `RunLockedError` from any copy of this package. */
  static isInstance(error: unknown): error is RunLockedError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
