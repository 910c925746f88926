import { SHAPE_TO_HANDLER_TYPE } from '../../graph.js';
import type { LintRule } from '../diagnostic.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `shape_mapping` (INFO, spec §2.8): a node without `type` whose shape maps to no handler type runs as
 * an LLM (codergen) stage; say so, in case another handler was meant.
 */
export const shapeMappingRule: LintRule = {
  name: 'shape_mapping',
  apply(graph) {
    return [...graph.nodes.values()]
      .filter((node) => node.type === undefined && !Object.hasOwn(SHAPE_TO_HANDLER_TYPE, node.shape))
      .map((node) => ({
        rule: 'shape_mapping',
        severity: 'info',
        message: `Node "${node.id}" has shape=${node.shape}, which maps to no handler type, so it runs as an LLM (codergen) stage.`,
        nodeId: node.id,
        fix: `Use shape=box for an LLM stage, or set type="..." / a mapped shape (${Object.keys(SHAPE_TO_HANDLER_TYPE).join(', ')}).`,
        span: attributeSpan(node.attributes.shape, nodeSpan(node)),
      }));
  },
};
