import { parseAcceleratorKey } from '../../accelerator-key.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { attributeSpan } from '../source-location.js';

/**
 * `human_default_choice` (WARNING, docs/architecture.md "Human gates"): `human.default_choice` names one of
 * the gate's options by target node id, edge label or accelerator key; otherwise a timeout retries instead.
 */
export const humanDefaultChoiceRule: LintRule = {
  name: 'human_default_choice',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      const attribute = node.attributes['human.default_choice'];
      if (attribute === undefined || !context.traitsOf(node).asksHuman) continue;
      const choice = attribute.value.trim();
      const edges = graph.outgoing(node.id);
      const matches = edges.some((edge) => {
        const label = edge.label.trim() === '' ? edge.to : edge.label.trim();
        return (
          edge.to === choice ||
          label.toLowerCase() === choice.toLowerCase() ||
          parseAcceleratorKey(label).toLowerCase() === choice.toLowerCase()
        );
      });
      if (matches || edges.length === 0) continue;
      diagnostics.push({
        rule: 'human_default_choice',
        severity: 'warning',
        message: `Human gate "${node.id}" has human.default_choice="${choice}", which matches none of its options (${edges.map((edge) => edge.to).join(', ')}).`,
        nodeId: node.id,
        fix: 'Set human.default_choice to a target node id, an option label or its accelerator key.',
        span: attributeSpan(attribute),
      });
    }
    return diagnostics;
  },
};
