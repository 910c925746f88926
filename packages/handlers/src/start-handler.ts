import { type DeclaredHandler, defineHandler } from '@attractor/engine';
import { SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';

/**
 * Creates the `start` handler (spec §4.3): a no-op that returns SUCCESS at once.
 *
 * @example
 * registry.register('start', createStartHandler());
 */
export function createStartHandler(): DeclaredHandler {
  return defineHandler({
    type: 'start',
    ...SPEC_HANDLER_DECLARATIONS.start,
    execute: async () => ({ status: 'success' }),
  });
}
