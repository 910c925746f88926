/**
 * The refusal of `DELETE /pipelines/{id}` for a run that is not over, as every backplane words it (the local
 * `RunManager` and the shared store's): 409 `RUN_ACTIVE`, saying what to do first.
 */
import { RunLockedError } from '@attractor/engine';
import { ApiError } from './errors/api-error.js';

/**
 * What a run can be doing that forbids deleting it: the active `RunState`s (`queued`, `running`, `waiting`) and
 * `being resumed` (a local resume that has not started its walk yet).
 */
const ACTIVE: ReadonlySet<string> = new Set(['queued', 'running', 'waiting', 'being resumed']);

/** Options of {@link runActiveError}. */
export interface RunActiveErrorOptions {
  readonly runId: string;
  /**
   * What the run is doing here: a `RunState`, or `being resumed`. An active one (queued, running, waiting, being
   * resumed) is refused; another gives no refusal.
   */
  readonly state?: string;
  /**
   * What removing the run threw: a `RunLockedError` (a live runner holds its lock) is refused, naming the holder;
   * another error gives no refusal (the caller rethrows it).
   */
  readonly error?: unknown;
  /**
   * Where that lock holder runs, for the message (e.g. `in another process`: the advice is then to stop it there).
   * Default: nothing said (the advice is to cancel it).
   */
  readonly holder?: string;
  /** The message of a refusal for `state`, when the default (`Run "<id>" is <state>: cancel it first, …`) will not do. */
  readonly message?: string;
}

/**
 * The 409 `RUN_ACTIVE` refusal of deleting run `runId` for an active `state` or a `RunLockedError` thrown while
 * removing it, or undefined when neither applies (the run may be deleted; the caller rethrows any other error).
 *
 * @example
 * const refusal = runActiveError({ runId, state: summary.state });
 * if (refusal !== undefined) throw refusal;
 * try { await catalog.removeRun(runId); } catch (error) { throw runActiveError({ runId, error }) ?? error; }
 */
export function runActiveError(options: RunActiveErrorOptions): ApiError | undefined {
  const { runId } = options;
  if (options.error !== undefined) {
    if (!RunLockedError.isInstance(options.error)) return undefined;
    const advice = options.holder === undefined ? 'cancel it first' : `stop it there first`;
    return new ApiError({
      status: 409,
      code: 'RUN_ACTIVE',
      message: `Run "${runId}" is running${options.holder === undefined ? '' : ` ${options.holder}`} (${options.error.message}): ${advice}, then delete it.`,
      cause: options.error,
    });
  }
  if (options.state === undefined || !ACTIVE.has(options.state)) return undefined;
  return new ApiError({
    status: 409,
    code: 'RUN_ACTIVE',
    message: options.message ?? `Run "${runId}" is ${options.state}: cancel it first, then delete it.`,
  });
}
