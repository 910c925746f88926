import type { Handler } from '@attractor/engine';

/**
 * Creates the `start` handler (spec §4.3): a no-op that returns SUCCESS at once.
 *
 * @example
 * registry.register('start', createStartHandler());
 */
export function createStartHandler(): Handler {
  return { execute: async () => ({ status: 'success' }) };
}
