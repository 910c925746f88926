import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/**
 * `fan_in_mode` (ERROR, docs/architecture.md "Parallel results"): a fan-in with `fan_in_mode=merge` has a
 * `prompt`. Merging asks an LLM to combine the branches' outputs into one, and the prompt says how; without
 * one there is nothing to merge with (`pick`, the default, falls back to the spec's heuristic instead).
 */
export const fanInModeRule: LintRule = {
  name: 'fan_in_mode',
  apply(graph, context) {
    return [...graph.nodes.values()]
      .filter(
        (node) =>
          context.traitsOf(node).joinsBranches &&
          node.attributes.fan_in_mode?.value.trim() === 'merge' &&
          node.prompt.trim() === '',
      )
      .map((node) => ({
        rule: 'fan_in_mode',
        severity: 'error',
        message: `Fan-in "${node.id}" has fan_in_mode=merge but no prompt, so there is nothing to merge the branches with.`,
        nodeId: node.id,
        fix: `Add prompt="Merge the branches' work into one ..." to "${node.id}" (the branches' full outputs are in $parallel.outputs), or remove fan_in_mode to pick one branch.`,
        span: nodeSpan(node),
      }));
  },
};
