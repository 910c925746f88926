/**
 * Cooperative scheduling of runs that share a process (a server runs many): a stage whose handler answers at once
 * (a simulated LLM stage, a conditional) completes in microtasks, and a walk of thousands of such stages would hold
 * the event loop for seconds, during which the process answers nothing else (issue 34 §11: a 4,900-node run started
 * on a server held its GETs for 10 s). The walkers call {@link yieldWhenBusy} after every node.
 */

/** How long stages may run without the event loop turning, in milliseconds. */
const SLICE_MS = 10;

/** When the current turn of the event loop began, as far as the walkers know (`performance.now()`). */
let turnStart = 0;
/** Whether a marker is set to note the next turn of the event loop. */
let marked = false;

function markTurn(): void {
  marked = false;
}

/**
 * Resolves at once, unless the walks of this process have run for {@link SLICE_MS} without the event loop turning:
 * then after one turn (`setImmediate`), in which timers and I/O (other requests, other runs' timers) go first.
 * Time here is scheduling only; nothing a run records depends on it.
 */
export function yieldWhenBusy(): Promise<void> | undefined {
  const now = performance.now();
  if (!marked) {
    // The loop has turned since the marker was set (or none was): a new slice starts now.
    marked = true;
    turnStart = now;
    setImmediate(markTurn);
    return undefined;
  }
  if (now - turnStart < SLICE_MS) return undefined;
  return new Promise((resolve) => setImmediate(resolve));
}
