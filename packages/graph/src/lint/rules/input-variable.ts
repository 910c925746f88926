import { SUBGRAPH_INPUT_PREFIX, SUBGRAPH_VARIABLE_PREFIX } from '../../attribute-schema.js';
import { inputVariableNames } from '../../expand-variables.js';
import type { GraphAttribute, GraphNode } from '../../graph.js';
import type { Diagnostic, LintContext, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { replacing, spanInAttribute } from '../source-location.js';

/**
 * `input_variable` (ERROR, README "Typed data"): a prompt, a `tool_command` or a sub-pipeline node's `var.*` or
 * `input.*` value uses `$input.<name>`, and the graph's
 * `inputs` does not declare `<name>` (or the graph declares no inputs); the fix names a declared input close to it
 * (`$input.nmae` → `$input.name`). Not checked when `inputs` names a JSON Schema
 * file: the engine checks the run's inputs against it.
 */
export const inputVariableRule: LintRule = {
  name: 'input_variable',
  apply(graph, context) {
    const declaration = graph.settings.inputs;
    if (declaration?.kind === 'file') return [];
    // A malformed inputs is reported by inputs_declaration; its names are not known.
    if (declaration === undefined && (graph.attributes.inputs?.value.trim() ?? '') !== '') return [];
    const declared = new Set(declaration?.fields.map((field) => field.name) ?? []);
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      for (const attribute of expandedAttributes(node, context)) {
        for (const { name, offset } of inputVariableNames(attribute.value)) {
          if (declared.has(name)) continue;
          const meant = didYouMean(name, declared);
          const span = spanInAttribute(graph, attribute, { offset, length: name.length + 7 });
          diagnostics.push({
            rule: 'input_variable',
            severity: 'error',
            message:
              declaration === undefined
                ? `The ${attribute.key} of "${node.id}" uses $input.${name}, but graph "${graph.id}" declares no inputs.`
                : `The ${attribute.key} of "${node.id}" uses $input.${name}, but the graph's inputs do not declare "${name}" (they declare ${[...declared].map((known) => `"${known}"`).join(', ') || 'nothing'}).`,
            nodeId: node.id,
            fix: `${meant === undefined ? 'Declare it' : `Did you mean $input.${meant}? Otherwise declare it`} in the graph's inputs, e.g. graph [inputs="${[...(declaration?.fields.map((field) => `${field.name}${field.optional ? '?' : ''}: ${field.type}`) ?? []), `${name}: string`].join(', ')}"].`,
            ...replacing(span, meant === undefined ? undefined : `$input.${meant}`),
          });
        }
      }
    }
    return diagnostics;
  },
};

/** The attributes of a node whose `$input.<name>` is expanded: its prompt and command, a sub-pipeline's variables. */
function expandedAttributes(node: GraphNode, context: LintContext): GraphAttribute[] {
  const attributes = [node.attributes.prompt, node.attributes.tool_command].filter(
    (attribute) => attribute !== undefined,
  );
  if (context.traitsOf(node).runsSubgraph !== true) return attributes;
  for (const attribute of Object.values(node.attributes)) {
    if (
      attribute.key.startsWith(SUBGRAPH_VARIABLE_PREFIX) ||
      attribute.key.startsWith(SUBGRAPH_INPUT_PREFIX)
    ) {
      attributes.push(attribute);
    }
  }
  return attributes;
}
