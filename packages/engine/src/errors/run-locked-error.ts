import { AttractorError, isErrorOf } from '@attractor/errors';
import type { RunLockHolder } from '../run-lock.js';

/**
 * Thrown (as a rejection) by `runPipeline` / `resumePipeline` when another live runner holds the run's lock (one run,
 * one runner, docs/architecture.md "Checkpoint"). The message names the holder.
 */
export class RunLockedError extends AttractorError<'RUN_LOCKED'> {
  override readonly name = 'RunLockedError';
  /** The run directory (or store key). */
  readonly logsRoot: string;
  /** Who holds the lock; undefined when the holder has not recorded itself yet. */
  readonly holder: RunLockHolder | undefined;
  /** Retryable: the holder may finish. */
  readonly retryable = true;

  constructor(options: { logsRoot: string; holder: RunLockHolder | undefined; cause?: unknown }) {
    const who =
      options.holder === undefined
        ? 'another process (it has not recorded itself yet)'
        : `process ${options.holder.pid} on host ${options.holder.host} since ${options.holder.since}`;
    super({
      code: 'RUN_LOCKED',
      message: `Run ${options.logsRoot} is being executed by ${who}. Wait for it to finish or stop it; a lock left by a killed process is taken over automatically.`,
      cause: options.cause,
    });
    this.logsRoot = options.logsRoot;
    this.holder = options.holder;
  }

  /** True for a `RunLockedError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(RunLockedError);
}
