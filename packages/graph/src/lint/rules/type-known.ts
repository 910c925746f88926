import type { LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `type_known` (WARNING, spec §7.2): an explicit node `type` names a handler type the registry knows.
 * The known set comes from `validate`'s `knownHandlerTypes` option (default: the built-ins of §2.8).
 */
export const typeKnownRule: LintRule = {
  name: 'type_known',
  apply(graph, context) {
    return [...graph.nodes.values()]
      .filter((node) => node.type !== undefined && !context.knownHandlerTypes.has(node.type))
      .map((node) => {
        const type = node.type!;
        const suggestion = didYouMean(type, context.knownHandlerTypes);
        return {
          rule: 'type_known',
          severity: 'warning',
          message: `Node "${node.id}" has type "${type}", which no registered handler runs.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
          nodeId: node.id,
          fix: suggestion
            ? `Change type to "${suggestion}".`
            : `Register a handler for "${type}", or use one of: ${[...context.knownHandlerTypes].join(', ')}.`,
          span: attributeSpan(node.attributes.type, nodeSpan(node)),
        };
      });
  },
};
