import { attributeDefinition } from '../../attribute-schema.js';
import { BUILT_IN_HANDLER_TYPE_NAMES } from '../../graph.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';

const BUILT_IN_TYPES: ReadonlySet<string> = new Set(BUILT_IN_HANDLER_TYPE_NAMES);

/**
 * `inert_attribute` (WARNING): an attribute written on a node whose handler never reads it, such as
 * `tool_command` on an LLM box or `join_policy` on a tool node. Inherited defaults and custom handler
 * types are not checked; `prompt` on the start node is `start_prompt`'s.
 */
export const inertAttributeRule: LintRule = {
  name: 'inert_attribute',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      const handlerType = graph.handlerType(node);
      if (!BUILT_IN_TYPES.has(handlerType)) continue;
      for (const attribute of Object.values(node.attributes)) {
        if (attribute.origin !== 'explicit') continue;
        if (attribute.key === 'prompt' && context.traitsOf(node).role === 'start') continue;
        const readers = attributeDefinition(attribute.key)?.handlers;
        if (readers === undefined || readers.includes(handlerType)) continue;
        const written = attribute.writtenKey ?? attribute.key;
        diagnostics.push({
          rule: 'inert_attribute',
          severity: 'warning',
          message: `Node "${node.id}" is a ${handlerType} node, which ignores ${written}; only ${readers.join(', ')} nodes read it.`,
          nodeId: node.id,
          fix: `Remove ${written}, or give "${node.id}" the shape or type of a ${readers[0]} node.`,
          span: attribute.keySpan ?? attribute.valueSpan,
        });
      }
    }
    return diagnostics;
  },
};
