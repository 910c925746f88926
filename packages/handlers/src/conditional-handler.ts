import { type DeclaredHandler, defineHandler } from '@attractor/engine';
import { SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';

/**
 * Creates the `conditional` handler (spec §4.7): a pass-through that returns SUCCESS with a note; the engine's
 * edge selection (spec §3.3) evaluates the outgoing edges' conditions against the outcome and the context.
 */
export function createConditionalHandler(): DeclaredHandler {
  return defineHandler({
    type: 'conditional',
    ...SPEC_HANDLER_DECLARATIONS.conditional,
    execute: async ({ node }) => ({ status: 'success', notes: `Conditional node evaluated: ${node.id}` }),
  });
}
