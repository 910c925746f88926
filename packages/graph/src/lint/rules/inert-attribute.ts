import { handlerCapabilities, traitsOfType } from '../../handler-traits.js';
import {
  builtInHandlerKeys,
  declarationOfType,
  declaresAttribute,
  specHandlerLintInfo,
} from '../../spec-handler-declarations.js';
import type { Diagnostic, LintContext, LintRule } from '../diagnostic.js';

/**
 * The handler types that declare `key`: the built-in types (their registered declaration, else the spec's) in the
 * spec's order, then the other registered types in registration order.
 */
function readersOf(key: string, context: LintContext): string[] {
  const types = [...specHandlerLintInfo().keys()];
  for (const type of context.handlers.keys()) if (!types.includes(type)) types.push(type);
  return types.filter((type) => declaresAttribute(declarationOfType(type, context.handlers), key));
}

/**
 * `inert_attribute` (WARNING): an attribute written on a node whose handler never reads it, such as
 * `tool_command` on an LLM box or `join_policy` on a tool node. Only keys some built-in handler declares in its
 * attribute schema are handler keys (`SPEC_HANDLER_DECLARATIONS`); every other known key applies to every node. A
 * handler reads a handler key when its declaration lists it, or when it shares a capability with a built-in handler
 * that does (`tool_command` is the tool handler's: any handler that `runsCommand` reads it). Built-in types and registered
 * handlers that declare a capability are checked; inherited defaults and other custom handler types are not;
 * `prompt` on the start node is `start_prompt`'s.
 */
export const inertAttributeRule: LintRule = {
  name: 'inert_attribute',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    const builtIn = specHandlerLintInfo();
    const keys = builtInHandlerKeys();
    const readersByKey = new Map<string, string[]>();
    for (const node of graph.nodes.values()) {
      const handlerType = graph.handlerType(node);
      const traits = context.traitsOf(node);
      const capabilities = handlerCapabilities(traits);
      if (!builtIn.has(handlerType) && (!context.handlers.has(handlerType) || capabilities.length === 0))
        continue;
      const declared = context.declarationOf(node);
      for (const attribute of Object.values(node.attributes)) {
        if (attribute.origin !== 'explicit' || !keys.has(attribute.key)) continue;
        if (attribute.key === 'prompt' && traits.role === 'start') continue;
        if (declaresAttribute(declared, attribute.key)) continue;
        let readers = readersByKey.get(attribute.key);
        if (readers === undefined) {
          readers = readersOf(attribute.key, context);
          readersByKey.set(attribute.key, readers);
        }
        // A capability of a built-in reader says what reads the key (`runsCommand`: `tool_command`); a custom
        // reader's capabilities say nothing about the other handlers that have them.
        const used = readers.some(
          (reader) =>
            builtIn.has(reader) &&
            handlerCapabilities(traitsOfType(reader, context.handlers)).some((capability) =>
              capabilities.includes(capability),
            ),
        );
        if (used || readers.length === 0) continue;
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
