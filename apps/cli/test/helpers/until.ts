/**
 * Waiting on conditions in end-to-end tests: what a child process prints, and any condition polled until it holds.
 * The limits are generous (the suite runs on busy machines); they only keep a broken test from hanging.
 */
import type { attractor } from './cli.js';

/** Resolves once `read()` returns true, polling every 100 ms. @throws {Error} after `timeoutMs`, naming `what`. */
export async function until(
  read: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string | (() => string),
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await read())) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Everything a child process has printed on stderr so far (`text`), kept as it comes. */
export function stderrOf(child: ReturnType<typeof attractor>): { readonly text: string } {
  const log = { text: '' };
  child.stderr?.on('data', (chunk: Buffer) => {
    log.text += chunk.toString();
  });
  return log;
}
