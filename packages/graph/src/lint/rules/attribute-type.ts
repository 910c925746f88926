import { type AttributeKey, attributeDefinition, parseAttributeValue } from '../../attribute-schema.js';
import type { Graph, GraphAttribute, GraphNode } from '../../graph.js';
import type { AttributeProblem } from '../../handler-attributes.js';
import { builtInHandlerKeys, declaresAttribute } from '../../spec-handler-declarations.js';
import { type AttributeOwner, forEachAttribute, keyOffset, nodeAttributeOwner } from '../attribute-walk.js';
import type { Diagnostic, HandlerLintInfo, LintContext, LintRule } from '../diagnostic.js';
import { attributeSpan } from '../source-location.js';

/** Keys whose invalid values have their own rule with the spec's severity. */
const REPORTED_ELSEWHERE = new Set(['fidelity', 'default_fidelity']);

/**
 * `attribute_type` (ERROR, docs/architecture.md "Attributes"): an attribute has a value of its type. A node
 * attribute its handler declares is checked by the handler's schema (`HandlerLintInfo.checkAttributes`: a
 * registered handler's, or the built-in one of `SPEC_HANDLER_DECLARATIONS`); any other known key by the
 * attribute table: integers, booleans (`true|false`), durations (`250ms 900s 15m 2h 1d`), enumerations
 * (`reasoning_effort`, `join_policy`, `manager.actions`, `tools`). A handler's key on a node whose handler does not
 * read it is left to `inert_attribute`. Each written attribute is reported at most once. The typed field of a
 * malformed value is undefined.
 */
export const attributeTypeRule: LintRule = {
  name: 'attribute_type',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    const declaredKeys = new Set<string>();
    const problems = declaredProblems(graph, context, diagnostics, declaredKeys);
    const reported = new Set<unknown>();
    // The attributes of one node or edge come one after the other, with the same owner.
    let lastOwner: AttributeOwner | undefined;
    let lastNode: GraphNode | undefined;
    forEachAttribute(graph, (attribute, owner) => {
      if (owner.scope === 'node' && declaredKeys.has(attribute.key) && owner !== lastOwner) {
        lastOwner = owner;
        lastNode = graph.nodes.get(owner.where.nodeId ?? '');
      }
      const node = owner === lastOwner ? lastNode : undefined;
      if (node !== undefined && declaresAttribute(context.declarationOf(node), attribute.key)) {
        const problem = problems.get(node)?.get(attribute.key);
        if (problem === undefined) return;
        reported.add(identity(attribute));
        diagnostics.push(declaredDiagnostic(graph, node, attribute, problem, owner));
        return;
      }
      const definition = attributeDefinition(attribute.key);
      if (definition === undefined || REPORTED_ELSEWHERE.has(attribute.key)) return;
      // A handler's key on a node whose handler does not read it is inert (`inert_attribute` says so): its value
      // is another runner's (`mode="freeform"` on a gate), not a mistyped one of ours.
      if (owner.scope === 'node' && builtInHandlerKeys().has(attribute.key)) {
        const owned = graph.nodes.get(owner.where.nodeId ?? '');
        if (owned !== undefined && !declaresAttribute(context.declarationOf(owned), attribute.key)) return;
      }
      if (!definition.scopes.includes(owner.scope)) return;
      const parsed = parseAttributeValue(attribute.key as AttributeKey, attribute.value);
      if (parsed.ok) return;
      reported.add(identity(attribute));
      diagnostics.push(tableDiagnostic(attribute, parsed.expected, owner));
    });
    // A value a default block gives several nodes is visited once, with the first of them: report it for the first
    // node whose handler's schema refuses it, unless the visit reported it already.
    for (const [node, byKey] of problems) {
      for (const [key, problem] of byKey) {
        const attribute = node.attributes[key]!;
        if (reported.has(identity(attribute))) continue;
        reported.add(identity(attribute));
        diagnostics.push(declaredDiagnostic(graph, node, attribute, problem));
      }
    }
    return diagnostics;
  },
};

/** Where a written attribute is, to report it once (the same written attribute can be several objects). */
function identity(attribute: GraphAttribute): unknown {
  return keyOffset(attribute) ?? attribute;
}

/** Whether a declaration's schema accepts a node without any of its attributes, by declaration. */
const acceptsNone = new WeakMap<HandlerLintInfo, boolean>();

/**
 * The problems each node's handler schema finds in the node's values, by node and key. A problem of a key the node
 * does not have (a required key missing, a check of the whole object) is reported here, without a span. Adds the
 * keys the nodes' handlers declare to `declaredKeys`.
 */
function declaredProblems(
  graph: Graph,
  context: LintContext,
  diagnostics: Diagnostic[],
  declaredKeys: Set<string>,
): Map<GraphNode, Map<string, AttributeProblem>> {
  const problems = new Map<GraphNode, Map<string, AttributeProblem>>();
  const seen = new Set<HandlerLintInfo>();
  for (const node of graph.nodes.values()) {
    const declared = context.declarationOf(node);
    if (declared?.checkAttributes === undefined || declared.attributeKeys === undefined) continue;
    if (!seen.has(declared)) {
      seen.add(declared);
      for (const key of declared.attributeKeys) declaredKeys.add(key);
    }
    const values: Record<string, string> = {};
    let count = 0;
    for (const key in node.attributes) {
      if (!declaresAttribute(declared, key)) continue;
      values[key] = node.attributes[key]!.value;
      count++;
    }
    if (count === 0) {
      // Most nodes set none of their handler's attributes: check an empty node once per declaration.
      let accepted = acceptsNone.get(declared);
      if (accepted === undefined) {
        accepted = declared.checkAttributes({}).length === 0;
        acceptsNone.set(declared, accepted);
      }
      if (accepted) continue;
    }
    const byKey = new Map<string, AttributeProblem>();
    for (const problem of declared.checkAttributes(values)) {
      if (Object.hasOwn(values, problem.key)) {
        if (!byKey.has(problem.key)) byKey.set(problem.key, problem);
        continue;
      }
      const type = graph.handlerType(node);
      diagnostics.push({
        rule: 'attribute_type',
        severity: 'error',
        message: `Node "${node.id}" has ${problem.key}, which its ${type} handler does not accept: ${problem.message}.`,
        nodeId: node.id,
        fix: `Give ${problem.key} a value the ${type} handler accepts (${problem.message}).`,
      });
    }
    if (byKey.size > 0) problems.set(node, byKey);
  }
  return problems;
}

/** A value of a key the attribute table types, worded with the table's `expected`. */
function tableDiagnostic(attribute: GraphAttribute, expected: string, owner: AttributeOwner): Diagnostic {
  const written = attribute.writtenKey ?? attribute.key;
  return {
    rule: 'attribute_type',
    severity: 'error',
    message: `${owner.description} has ${written}="${attribute.value}", which is not valid: expected ${expected}.`,
    ...owner.where,
    fix: `Write ${written} as ${expected}.`,
    span: attributeSpan(attribute),
  };
}

/** A value the node's handler schema refuses: in the table's words when the schema typed it with the table's type. */
function declaredDiagnostic(
  graph: Graph,
  node: GraphNode,
  attribute: GraphAttribute,
  problem: AttributeProblem,
  owner?: AttributeOwner,
): Diagnostic {
  if (problem.expected !== undefined)
    return tableDiagnostic(attribute, problem.expected, owner ?? nodeAttributeOwner(node, attribute));
  const type = graph.handlerType(node);
  return {
    rule: 'attribute_type',
    severity: 'error',
    message: `Node "${node.id}" has ${problem.key}="${attribute.value}", which its ${type} handler does not accept: ${problem.message}.`,
    nodeId: node.id,
    fix: `Give ${problem.key} a value the ${type} handler accepts (${problem.message}).`,
    span: attributeSpan(attribute),
  };
}
