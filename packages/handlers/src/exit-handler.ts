import type { Handler } from '@attractor/engine';

/**
 * Creates the `exit` handler (spec §4.4): a no-op that returns SUCCESS at once. Goal gates are the engine's
 * concern (spec §3.4), checked before the exit node runs.
 */
export function createExitHandler(): Handler {
  return { execute: async () => ({ status: 'success' }) };
}
