import type { LintRule } from '../diagnostic.js';

/**
 * `terminal_node` (ERROR, spec §7.2): the graph has an exit node (shape=Msquare, type=exit, or id exit/end). Spec
 * §7.2 asks for exactly one; a second one is accepted with a `dialect_alias` warning (Kilroy pipelines have several;
 * see that rule), an error with `--strict`.
 */
export const terminalNodeRule: LintRule = {
  name: 'terminal_node',
  apply(graph) {
    const exits = graph.exitNodes;
    if (exits.length === 0) {
      return [
        {
          rule: 'terminal_node',
          severity: 'error',
          message: `Graph "${graph.id}" has no exit node.`,
          fix: 'Add `exit [shape=Msquare]` and an edge from the last stage to it.',
        },
      ];
    }
    return [];
  },
};
