import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/**
 * `prompt_on_llm_nodes` (WARNING, spec §7.2): a node that resolves to the codergen handler has a
 * `prompt` or `label`; otherwise the LLM is sent only the node id.
 */
export const promptOnLlmNodesRule: LintRule = {
  name: 'prompt_on_llm_nodes',
  apply(graph, context) {
    return [...graph.nodes.values()]
      .filter(
        (node) =>
          context.traitsOf(node).callsModel &&
          node.prompt.trim() === '' &&
          (node.attributes.label?.value ?? '').trim() === '',
      )
      .map((node) => ({
        rule: 'prompt_on_llm_nodes',
        severity: 'warning',
        message: `LLM node "${node.id}" has no prompt or label, so the model is asked only "${node.id}".`,
        nodeId: node.id,
        fix: `Add prompt="..." to "${node.id}", or give it another shape if it is not an LLM stage.`,
        span: nodeSpan(node),
      }));
  },
};
