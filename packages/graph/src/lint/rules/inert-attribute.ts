import { attributeDefinition } from '../../attribute-schema.js';
import { BUILT_IN_HANDLER_TYPE_NAMES } from '../../graph.js';
import { handlerCapabilities, traitsOfType } from '../../handler-traits.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';

const BUILT_IN_TYPES: ReadonlySet<string> = new Set(BUILT_IN_HANDLER_TYPE_NAMES);

/**
 * `inert_attribute` (WARNING): an attribute written on a node whose handler never reads it, such as
 * `tool_command` on an LLM box or `join_policy` on a tool node. A handler reads an attribute when it declares a
 * capability of one of the handler types the attribute table names (`tool_command` is `tool`'s: any handler that
 * `runsCommand` reads it), or lists the key among its attribute keys. Built-in types and registered handlers that
 * declare a capability are checked; inherited defaults and other custom handler types are not; `prompt` on the start
 * node is `start_prompt`'s.
 */
export const inertAttributeRule: LintRule = {
  name: 'inert_attribute',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      const handlerType = graph.handlerType(node);
      const declared = context.handlers.get(handlerType);
      const capabilities = handlerCapabilities(context.traitsOf(node));
      if (!BUILT_IN_TYPES.has(handlerType) && (declared === undefined || capabilities.length === 0)) continue;
      for (const attribute of Object.values(node.attributes)) {
        if (attribute.origin !== 'explicit') continue;
        if (attribute.key === 'prompt' && context.traitsOf(node).role === 'start') continue;
        if (declared?.attributeKeys?.includes(attribute.key) === true) continue;
        const readers = attributeDefinition(attribute.key)?.handlers;
        if (readers === undefined || readers.includes(handlerType)) continue;
        const used = readers.some((reader) =>
          handlerCapabilities(traitsOfType(reader)).some((capability) => capabilities.includes(capability)),
        );
        if (used) continue;
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
