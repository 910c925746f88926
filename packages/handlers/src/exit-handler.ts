import { type DeclaredHandler, defineHandler } from '@attractor/engine';
import { SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';

/**
 * Creates the `exit` handler (spec §4.4): a no-op that returns SUCCESS at once. Goal gates are the engine's
 * concern (spec §3.4), checked before the exit node runs.
 */
export function createExitHandler(): DeclaredHandler {
  return defineHandler({
    type: 'exit',
    ...SPEC_HANDLER_DECLARATIONS.exit,
    execute: async () => ({ status: 'success' }),
  });
}
