import { type AttributeKey, attributeDefinition, parseAttributeValue } from '../../attribute-schema.js';
import type { Graph } from '../../graph.js';
import { forEachAttribute } from '../attribute-walk.js';
import type { Diagnostic, HandlerLintInfo, LintRule } from '../diagnostic.js';
import { attributeSpan } from '../source-location.js';

/** Keys whose invalid values have their own rule with the spec's severity. */
const REPORTED_ELSEWHERE = new Set(['fidelity', 'default_fidelity']);

/**
 * `attribute_type` (ERROR, DESIGN.md "Attributes"): a known key has a value of its type: integers,
 * booleans (`true|false`), durations (`250ms 900s 15m 2h 1d`), enumerations (`reasoning_effort`,
 * `join_policy`, `manager.actions`, `tools`). The typed field of a malformed value is undefined.
 */
export const attributeTypeRule: LintRule = {
  name: 'attribute_type',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    if (context.handlers.size > 0) checkDeclaredAttributes(graph, context.handlers, diagnostics);
    forEachAttribute(graph, (attribute, owner) => {
      const definition = attributeDefinition(attribute.key);
      if (definition === undefined || REPORTED_ELSEWHERE.has(attribute.key)) return;
      if (!definition.scopes.includes(owner.scope)) return;
      const parsed = parseAttributeValue(attribute.key as AttributeKey, attribute.value);
      if (parsed.ok) return;
      const written = attribute.writtenKey ?? attribute.key;
      diagnostics.push({
        rule: 'attribute_type',
        severity: 'error',
        message: `${owner.description} has ${written}="${attribute.value}", which is not valid: expected ${parsed.expected}.`,
        ...owner.where,
        fix: `Write ${written} as ${parsed.expected}.`,
        span: attributeSpan(attribute),
      });
    });
    return diagnostics;
  },
};

/** Values of the attributes a registered handler declares, checked by the handler's own schema. */
function checkDeclaredAttributes(
  graph: Graph,
  handlers: ReadonlyMap<string, HandlerLintInfo>,
  diagnostics: Diagnostic[],
): void {
  for (const node of graph.nodes.values()) {
    const declared = handlers.get(graph.handlerType(node));
    if (declared?.checkAttributes === undefined || declared.attributeKeys === undefined) continue;
    const values: Record<string, string> = {};
    for (const key of declared.attributeKeys) {
      const attribute = Object.hasOwn(node.attributes, key) ? node.attributes[key] : undefined;
      if (attribute !== undefined) values[key] = attribute.value;
    }
    for (const problem of declared.checkAttributes(values)) {
      const attribute = Object.hasOwn(node.attributes, problem.key)
        ? node.attributes[problem.key]
        : undefined;
      diagnostics.push({
        rule: 'attribute_type',
        severity: 'error',
        message: `Node "${node.id}" has ${problem.key}${attribute === undefined ? '' : `="${attribute.value}"`}, which its ${graph.handlerType(node)} handler does not accept: ${problem.message}.`,
        nodeId: node.id,
        fix: `Give ${problem.key} a value the ${graph.handlerType(node)} handler accepts (${problem.message}).`,
        ...(attribute === undefined ? {} : { span: attributeSpan(attribute) }),
      });
    }
  }
}
