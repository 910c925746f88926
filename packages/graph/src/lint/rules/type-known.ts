import { type GraphNode, SHAPE_TO_HANDLER_TYPE } from '../../graph.js';
import type { LintContext, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * What runs a node whose `type` no handler is registered for (the engine's `HandlerRegistry.resolveType`): the
 * handler of its shape when that one is registered and is not codergen, else the default handler, the LLM
 * (codergen) stage.
 */
function fallbackDescription(node: GraphNode, context: LintContext): string {
  const shapeType = (SHAPE_TO_HANDLER_TYPE as Record<string, string | undefined>)[node.shape];
  if (shapeType !== undefined && shapeType !== 'codergen' && context.knownHandlerTypes.has(shapeType)) {
    return `the ${shapeType} handler of its shape (${node.shape})`;
  }
  return 'an LLM (codergen) stage, the default handler';
}

/**
 * `type_known` (spec §7.2): an explicit node `type` names a handler type the registry knows. The known set comes
 * from `validate`'s `knownHandlerTypes` option (default: the built-ins of §2.8). A node with an unknown type runs
 * as the handler of its shape or, for most nodes, as the default LLM (codergen) stage. A near-miss of a known type
 * (`subgrahp`, `wait.humna`: see `didYouMean`) is an ERROR with the type it probably meant, like `shape_mapping`'s
 * mistyped shapes, since running would hand that stage to the wrong handler; any other unknown type is a WARNING
 * (a custom handler that this registry lacks).
 */
export const typeKnownRule: LintRule = {
  name: 'type_known',
  apply(graph, context) {
    return [...graph.nodes.values()]
      .filter((node) => node.type !== undefined && !context.knownHandlerTypes.has(node.type))
      .map((node) => {
        const type = node.type!;
        const suggestion = didYouMean(type, context.knownHandlerTypes);
        const span = attributeSpan(node.attributes.type, nodeSpan(node));
        const fallback = fallbackDescription(node, context);
        if (suggestion !== undefined) {
          return {
            rule: 'type_known',
            severity: 'error' as const,
            message: `Node "${node.id}" has type "${type}", which no registered handler has, so it would run as ${fallback}. Did you mean "${suggestion}"?`,
            nodeId: node.id,
            fix: `Change type to "${suggestion}".`,
            span,
          };
        }
        return {
          rule: 'type_known',
          severity: 'warning' as const,
          message: `Node "${node.id}" has type "${type}", which no registered handler has, so it runs as ${fallback}.`,
          nodeId: node.id,
          fix: `Register a handler for "${type}", or use one of: ${[...context.knownHandlerTypes].join(', ')}.`,
          span,
        };
      });
  },
};
