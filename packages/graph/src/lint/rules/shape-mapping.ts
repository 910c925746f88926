import { GRAPHVIZ_SHAPES } from '@attractor/stylesheet';
import { SHAPE_TO_HANDLER_TYPE } from '../../graph.js';
import type { LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `shape_mapping` (spec §2.8): a node without `type` whose shape maps to no handler type runs as an
 * LLM (codergen) stage. A WARNING with a did-you-mean when the shape is no Graphviz shape (`GRAPHVIZ_SHAPES`
 * of `@attractor/stylesheet`) and is a near-miss of a mapped one (`paralelogram`); otherwise an INFO, in
 * case another handler was meant.
 */
export const shapeMappingRule: LintRule = {
  name: 'shape_mapping',
  apply(graph) {
    const mapped = Object.keys(SHAPE_TO_HANDLER_TYPE);
    return [...graph.nodes.values()]
      .filter((node) => node.type === undefined && !Object.hasOwn(SHAPE_TO_HANDLER_TYPE, node.shape))
      .map((node) => {
        const span = attributeSpan(node.attributes.shape, nodeSpan(node));
        const typo = GRAPHVIZ_SHAPES.has(node.shape) ? undefined : didYouMean(node.shape, mapped);
        if (typo !== undefined) {
          return {
            rule: 'shape_mapping',
            severity: 'warning' as const,
            message: `Node "${node.id}" has shape=${node.shape}, which is not a known shape, so it runs as an LLM (codergen) stage. Did you mean "${typo}"?`,
            nodeId: node.id,
            fix: `Change shape=${node.shape} to shape=${typo} (the ${SHAPE_TO_HANDLER_TYPE[typo as keyof typeof SHAPE_TO_HANDLER_TYPE]} handler).`,
            span,
          };
        }
        return {
          rule: 'shape_mapping',
          severity: 'info' as const,
          message: `Node "${node.id}" has shape=${node.shape}, which maps to no handler type, so it runs as an LLM (codergen) stage.`,
          nodeId: node.id,
          fix: `Use shape=box for an LLM stage, or set type="..." / a mapped shape (${mapped.join(', ')}).`,
          span,
        };
      });
  },
};
