import { parseAcceleratorKey } from '../../accelerator-key.js';
import { nodeAttribute } from '../../attribute-schema.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { attributeSpan } from '../source-location.js';

/**
 * `human_gate_accelerators` (WARNING, spec §4.6): the options of a `wait.human` node have distinct
 * accelerator keys (compared case-insensitively); a shared key makes the second option unreachable by key.
 */
export const humanGateAcceleratorsRule: LintRule = {
  name: 'human_gate_accelerators',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      if (!context.traitsOf(node).asksHuman || nodeAttribute(node, 'human.input') === 'text') continue;
      const taken = new Map<string, string>();
      for (const edge of graph.outgoing(node.id)) {
        const label = edge.label.trim() === '' ? edge.to : edge.label;
        const key = parseAcceleratorKey(label).toUpperCase();
        if (key === '') continue;
        const first = taken.get(key);
        if (first === undefined) {
          taken.set(key, label);
          continue;
        }
        diagnostics.push({
          rule: 'human_gate_accelerators',
          severity: 'warning',
          message: `Options "${first}" and "${label}" of human gate "${node.id}" share the accelerator key "${key}".`,
          nodeId: node.id,
          edge: { from: edge.from, to: edge.to },
          fix: `Give this option its own key, e.g. label="[X] ${label.replace(/^\[\w\]\s*/, '')}" with an unused X.`,
          span: attributeSpan(edge.attributes.label, edge.span),
        });
      }
    }
    return diagnostics;
  },
};
