import { nodeAttribute } from '../../attribute-schema.js';
import type { LintRule } from '../diagnostic.js';

/**
 * `human_gate_labels` (WARNING, spec §4.6): every option of a `wait.human` node is a labelled edge;
 * an unlabelled one is shown to the human as the bare target id. Text gates (`human.input=text`) offer no options.
 */
export const humanGateLabelsRule: LintRule = {
  name: 'human_gate_labels',
  apply(graph, context) {
    return [...graph.nodes.values()]
      .filter((node) => context.traitsOf(node).asksHuman && nodeAttribute(node, 'human.input') !== 'text')
      .flatMap((node) =>
        graph
          .outgoing(node.id)
          .filter((edge) => edge.label.trim() === '')
          .map((edge) => ({
            rule: 'human_gate_labels',
            severity: 'warning' as const,
            message: `Option ${edge.from} -> ${edge.to} of human gate "${node.id}" has no label; the human sees only "${edge.to}".`,
            nodeId: node.id,
            edge: { from: edge.from, to: edge.to },
            fix: `Add label="[${edge.to.charAt(0).toUpperCase()}] <what this choice does>" to the edge.`,
            span: edge.span,
          })),
      );
  },
};
