import { SUBGRAPH_INPUT_PREFIX, SUBGRAPH_VARIABLE_PREFIX } from '../../attribute-schema.js';
import { inputVariableNames } from '../../expand-variables.js';
import type { GraphAttribute, GraphNode } from '../../graph.js';
import type { Diagnostic, LintContext, LintRule, Severity } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { replacing, spanInAttribute } from '../source-location.js';

/**
 * `input_variable` (ERROR, README "Typed data"): a prompt, a `tool_command` or a sub-pipeline node's `var.*` or
 * `input.*` value uses `$input.<name>`, and the graph's
 * `inputs` does not declare `<name>` (or the graph declares no inputs); the fix names a declared input close to it
 * (`$input.nmae` → `$input.name`). When `inputs` names a JSON Schema file, the names are checked against its
 * `properties` once `prepareGraph` has read it (`LintContext.inputSchema`): an ERROR when the schema refuses other names
 * (`additionalProperties: false`), else a WARNING (a run may still be given the name); not checked when the file was
 * not read.
 */
export const inputVariableRule: LintRule = {
  name: 'input_variable',
  apply(graph, context) {
    const declaration = graph.settings.inputs;
    let check: NameCheck;
    if (declaration?.kind === 'file') {
      const schema = context.inputSchema;
      if (schema === undefined) return [];
      const declared = new Set(schema.fields.map((field) => field.name));
      check = {
        declared,
        severity: schema.closed ? 'error' : 'warning',
        undeclared: (name) =>
          `the input schema ${schema.path} does not declare "${name}" (it declares ${quoted(declared)})${schema.closed ? '' : '; a run is given it only if the caller passes it'}`,
        fix: (name, meant) =>
          `${meant === undefined ? 'Add' : `Did you mean $input.${meant}? Otherwise add`} "${name}" to the properties of ${schema.path}.`,
      };
    } else {
      // A malformed inputs is reported by inputs_declaration; its names are not known.
      if (declaration === undefined && (graph.attributes.inputs?.value.trim() ?? '') !== '') return [];
      const declared = new Set(declaration?.fields.map((field) => field.name) ?? []);
      check = {
        declared,
        severity: 'error',
        undeclared: (name) =>
          declaration === undefined
            ? `graph "${graph.id}" declares no inputs`
            : `the graph's inputs do not declare "${name}" (they declare ${quoted(declared)})`,
        fix: (name, meant) =>
          `${meant === undefined ? 'Declare it' : `Did you mean $input.${meant}? Otherwise declare it`} in the graph's inputs, e.g. graph [inputs="${[...(declaration?.fields.map((field) => `${field.name}${field.optional ? '?' : ''}: ${field.type}`) ?? []), `${name}: string`].join(', ')}"].`,
      };
    }
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      for (const attribute of expandedAttributes(node, context)) {
        for (const { name, offset } of inputVariableNames(attribute.value)) {
          if (check.declared.has(name)) continue;
          const meant = didYouMean(name, check.declared);
          const span = spanInAttribute(graph, attribute, { offset, length: name.length + 7 });
          diagnostics.push({
            rule: 'input_variable',
            severity: check.severity,
            message: `The ${attribute.key} of "${node.id}" uses $input.${name}, but ${check.undeclared(name)}.`,
            nodeId: node.id,
            fix: check.fix(name, meant),
            ...replacing(span, meant === undefined ? undefined : `$input.${meant}`),
          });
        }
      }
    }
    return diagnostics;
  },
};

/** How the names of one declaration are checked: what it declares, how bad an undeclared name is, and the words. */
interface NameCheck {
  readonly declared: ReadonlySet<string>;
  readonly severity: Severity;
  readonly undeclared: (name: string) => string;
  readonly fix: (name: string, meant: string | undefined) => string;
}

function quoted(names: ReadonlySet<string>): string {
  return [...names].map((known) => `"${known}"`).join(', ') || 'nothing';
}

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
