import { GRAPHVIZ_SHAPES } from '@attractor/stylesheet';
import { SHAPE_TO_HANDLER_TYPE } from '../../graph.js';
import { SPEC_HANDLER_TRAITS } from '../../handler-traits.js';
import type { LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `shape_mapping` (spec §2.8): a node without `type` whose shape maps to no handler type runs as an
 * LLM (codergen) stage. When the shape is no Graphviz shape (`GRAPHVIZ_SHAPES` of `@attractor/stylesheet`) and
 * is a near-miss of a mapped one (`parallelogramm`, `hexgon`, `diamnd`: see `didYouMean`), it is an ERROR with
 * the shape it probably meant, since running would send a tool, gate or routing stage to the LLM backend; a
 * near-miss of `box` (which is the codergen stage anyway) is a WARNING. Any other unmapped shape (a real Graphviz
 * shape such as `ellipse` or `tab`, or one far from every mapped shape) is an INFO, in case another handler was
 * meant.
 */
export const shapeMappingRule: LintRule = {
  name: 'shape_mapping',
  apply(graph) {
    const mapped = Object.keys(SHAPE_TO_HANDLER_TYPE) as (keyof typeof SHAPE_TO_HANDLER_TYPE)[];
    return [...graph.nodes.values()]
      .filter((node) => node.type === undefined && !Object.hasOwn(SHAPE_TO_HANDLER_TYPE, node.shape))
      .map((node) => {
        const span = attributeSpan(node.attributes.shape, nodeSpan(node));
        const typo = GRAPHVIZ_SHAPES.has(node.shape) ? undefined : didYouMean(node.shape, mapped);
        if (typo !== undefined) {
          const handler = SHAPE_TO_HANDLER_TYPE[typo as keyof typeof SHAPE_TO_HANDLER_TYPE];
          // The default handler is the LLM stage: a near-miss of its own shape changes nothing.
          const changesHandler = SPEC_HANDLER_TRAITS[handler]?.callsModel !== true;
          return {
            rule: 'shape_mapping',
            severity: changesHandler ? ('error' as const) : ('warning' as const),
            message: `Node "${node.id}" has shape=${node.shape}, which is neither a Graphviz shape nor a handler shape (spec §2.8), so it ${changesHandler ? 'would run' : 'runs'} as an LLM (codergen) stage. Did you mean "${typo}" (the ${handler} handler)?`,
            nodeId: node.id,
            fix: `Change shape=${node.shape} to shape=${typo}${changesHandler ? `, or set type="${handler}"` : ''}.`,
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
