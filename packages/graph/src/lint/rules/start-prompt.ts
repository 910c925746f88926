import type { LintRule } from '../diagnostic.js';
import { attributeSpan } from '../source-location.js';

/** `start_prompt` (WARNING, spec §4.3): the start node is a no-op, so a prompt on it is never sent. */
export const startPromptRule: LintRule = {
  name: 'start_prompt',
  apply(graph, context) {
    return graph.startNodes
      .filter((node) => context.traitsOf(node).role === 'start' && node.prompt.trim() !== '')
      .map((node) => ({
        rule: 'start_prompt',
        severity: 'warning',
        message: `Start node "${node.id}" has a prompt, but the start handler does nothing, so the prompt is never sent.`,
        nodeId: node.id,
        fix: `Move the prompt to a stage after "${node.id}" (e.g. a box node it points to).`,
        span: attributeSpan(node.attributes.prompt),
      }));
  },
};
