/**
 * The abort signal of one stage attempt, and how an attempt hears that its run was cancelled (spec §3.5;
 * docs/architecture.md "Cancellation and time"). Both are on the path of every node: a no-op stage (start,
 * exit, a conditional) costs less than creating and aborting an `AbortController`, or than adding and
 * removing a listener on the run's signal.
 */

/**
 * The abort signal of one attempt, created when a handler first reads it: most stages that never look at it then
 * cost no controller and no abort event. Aborted by the run's cancellation, the stage timeout, or the end of the
 * attempt (so that anything the handler left running stops). Internal to the engine.
 */
export class AttemptSignal {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  /** The attempt's signal (`runtime.abortSignal`); already aborted, with the same reason, if read after the abort. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Whether the attempt was aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Aborts the attempt with `reason`; a second call does nothing. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** The callbacks waiting for each long-lived signal (a run's, a branch's), behind one listener per signal. */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `callback` once when `signal` aborts (at once when it already has); returns the function that stops
 * waiting. All callers on one signal share a single `abort` listener, so waiting costs a set insertion rather than
 * a listener per attempt. Internal to the engine.
 */
export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) {
    callback();
    return () => {};
  }
  let callbacks = waiting.get(signal);
  if (callbacks === undefined) {
    const registered = new Set<() => void>();
    callbacks = registered;
    waiting.set(signal, registered);
    signal.addEventListener(
      'abort',
      () => {
        waiting.delete(signal);
        for (const waiter of [...registered]) waiter();
      },
      { once: true },
    );
  }
  const registered = callbacks;
  registered.add(callback);
  return () => {
    registered.delete(callback);
  };
}
