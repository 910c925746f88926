import type { Handler } from '@attractor/engine';

/**
 * Creates the `conditional` handler (spec §4.7): a pass-through that returns SUCCESS with a note; the engine's
 * edge selection (spec §3.3) evaluates the outgoing edges' conditions against the outcome and the context.
 */
export function createConditionalHandler(): Handler {
  return {
    execute: async (node) => ({ status: 'success', notes: `Conditional node evaluated: ${node.id}` }),
  };
}
