/**
 * The file half of lints `subgraph_input` and `out_map_field` for sub-pipeline nodes (README "Typed data"): a
 * `subgraph` node's `input.<name>` attributes against the `inputs` its child pipeline declares, and its `out_map`
 * fields against the child's `outputs`. `checkGraphRefs` runs it for each child file it could read and prepare
 * without errors.
 */
import { SUBGRAPH_INPUT_PREFIX } from '../attribute-schema.js';
import type { Graph, GraphNode } from '../graph.js';
import type { InputField } from '../input-declaration.js';
import { parseOutMap } from '../output-schema-declaration.js';
import type { Diagnostic } from './diagnostic.js';
import { didYouMean } from './did-you-mean.js';
import type { InputSchemaFile } from './input-schema-file.js';
import {
  attributeSpan,
  keyEdit,
  nodeSpan,
  plainSpan,
  replacing,
  spanInAttribute,
} from './source-location.js';

/** What {@link checkSubgraphInterface} checks: a `subgraph` node of `graph`, its child graph and `graph_ref` as written. */
export interface SubgraphInterfaceCheck {
  readonly graph: Graph;
  readonly node: GraphNode;
  readonly child: Graph;
  readonly ref: string;
  /**
   * The child's input schema file as the child's own preparation read it (relative to the child's DOT file), when
   * its `inputs` names one. A schema file that could not be read is the child's own `inputs_declaration` error, and
   * a child with errors is not checked here; without it, the child's inputs are not checked.
   */
  readonly inputSchema?: InputSchemaFile & { readonly path: string };
}

/**
 * Checks a sub-pipeline node against the interface of the child pipeline it runs (`graph_ref` as written in `ref`):
 * - `subgraph_input` (ERROR): an `input.<name>` the child does not declare (at the key, naming a declared input
 *   close to it), an `input.<name>` given to a child that declares no inputs, a value without variables that the
 *   input's type refuses (`input.count="three"` for `count: integer`, at the value), and a required input of the
 *   child the node does not give (at the node id). Checked against inline `inputs`, or the top-level `properties`,
 *   `required` and `additionalProperties` of a schema file (`inputs="schemas/in.json"`, relative to the child's DOT
 *   file as the run reads it), as the child's preparation read it (`inputSchema`).
 * - `out_map_field` (ERROR): an `out_map` field that is none of the child's `outputs` keys nor a path into one
 *   (at the field, naming the near key); or, once at the `out_map`, an `out_map` on a node whose child declares no
 *   `outputs` (the node then takes every key the child changed, and the `out_map` is not read).
 */
export function checkSubgraphInterface(options: SubgraphInterfaceCheck): Diagnostic[] {
  return [...inputFindings(options), ...outMapFindings(options)];
}

/** The inputs a child pipeline takes, from its inline `inputs` or its schema file. */
interface ChildInputs {
  readonly fields: readonly InputField[];
  /** Other names are refused: always for inline `inputs`, for a schema file when `additionalProperties` is false. */
  readonly closed: boolean;
  /** Who declares them, in messages: `review-one.dot`, or `the input schema of review-one.dot (schemas/in.json)`. */
  readonly declarer: string;
  /** How to declare an input not declared, in a fix. */
  readonly declareFix: (name: string) => string;
}

/**
 * The child's inputs: `undefined` when it declares none, `'unknown'` when they are in a schema file that was not read
 * (`inputSchema` not given); else its inline `inputs`, or the schema file's top-level `properties`, `required` and
 * `additionalProperties`.
 */
function childInputs(options: SubgraphInterfaceCheck): ChildInputs | 'unknown' | undefined {
  const { child, ref, inputSchema } = options;
  const declaration = child.settings.inputs;
  if (declaration === undefined) return undefined;
  if (declaration.kind === 'fields') {
    return {
      fields: declaration.fields,
      closed: true,
      declarer: ref,
      declareFix: (name) => `declare it in ${ref}: inputs="${name}: string"`,
    };
  }
  if (inputSchema === undefined) return 'unknown';
  return {
    fields: inputSchema.fields,
    closed: inputSchema.closed,
    declarer: `the input schema of ${ref} (${inputSchema.path})`,
    declareFix: (name) => `add "${name}" to the properties of ${inputSchema.path}`,
  };
}

function inputFindings(options: SubgraphInterfaceCheck): Diagnostic[] {
  const { node, ref } = options;
  const inputs = childInputs(options);
  if (inputs === 'unknown') return [];
  const declared = inputs?.fields ?? [];
  const names = declared.map((field) => field.name);
  const given = Object.values(node.attributes).filter(
    (attribute) =>
      attribute.key.startsWith(SUBGRAPH_INPUT_PREFIX) && attribute.key.length > SUBGRAPH_INPUT_PREFIX.length,
  );
  const diagnostics: Diagnostic[] = [];
  for (const attribute of given) {
    const name = attribute.key.slice(SUBGRAPH_INPUT_PREFIX.length);
    const field = declared.find((candidate) => candidate.name === name);
    if (field !== undefined) {
      // A value without variables is known now: one the child's type refuses fails every run of the node.
      const expected = attribute.value.includes('$')
        ? undefined
        : literalMismatch(field.type, attribute.value);
      if (expected !== undefined) {
        const span = attribute.valueSpan ?? attribute.keySpan;
        diagnostics.push({
          rule: 'subgraph_input',
          severity: 'error',
          message: `Subgraph node "${node.id}" gives input "${name}" the value ${JSON.stringify(attribute.value)}, which is not ${expected} (${inputs?.declarer ?? ref} declares ${name}: ${field.type}), so the run of "${node.id}" fails.`,
          nodeId: node.id,
          fix: `Write ${expected} in ${attribute.key} (read as JSON, as \`--input\` reads it), or a variable ($context.<key>, $input.<name>, $item.<name>).`,
          ...(span === undefined ? {} : { span: plainSpan(span) }),
        });
      }
      continue;
    }
    if (inputs !== undefined && !inputs.closed) continue;
    const near = didYouMean(name, names);
    const span = attribute.keySpan ?? attribute.valueSpan;
    diagnostics.push({
      rule: 'subgraph_input',
      severity: 'error',
      message:
        inputs === undefined
          ? `Subgraph node "${node.id}" gives input "${name}", but ${ref} declares no inputs, so the run of "${node.id}" fails.`
          : `Subgraph node "${node.id}" gives input "${name}", which ${inputs.declarer} does not declare (it declares ${names.map((known) => `"${known}"`).join(', ')}), so the run of "${node.id}" fails.`,
      nodeId: node.id,
      fix:
        near !== undefined
          ? `Did you mean "${SUBGRAPH_INPUT_PREFIX}${near}"? Rename ${attribute.key} to ${SUBGRAPH_INPUT_PREFIX}${near}.`
          : `Remove ${attribute.key}, or ${inputs?.declareFix(name) ?? `declare it in ${ref}: inputs="${name}: string"`}.`,
      ...(span === undefined ? {} : { span: plainSpan(span) }),
      ...(near === undefined ? {} : keyEdit(attribute, `${SUBGRAPH_INPUT_PREFIX}${near}`)),
    });
  }
  const givenNames = new Set(given.map((attribute) => attribute.key.slice(SUBGRAPH_INPUT_PREFIX.length)));
  const span = nodeSpan(node);
  for (const field of declared) {
    if (field.optional || givenNames.has(field.name)) continue;
    diagnostics.push({
      rule: 'subgraph_input',
      severity: 'error',
      message: `Subgraph node "${node.id}" does not give the required input "${field.name}" (${field.type}) of ${ref}, so the run of "${node.id}" fails.`,
      nodeId: node.id,
      fix: `Add ${SUBGRAPH_INPUT_PREFIX}${field.name}="..." to "${node.id}" (a value, or $context.<key>, $input.<name>, $item.<name>).`,
      ...(span === undefined ? {} : { span: plainSpan(span) }),
    });
  }
  return diagnostics;
}

/** JSON-parsed, or `undefined` when `text` is not JSON. */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * What a compact-form input type wants, in words, when `text` (read as `--input` reads it: a string input as written,
 * others as JSON) is not of it; `undefined` when it is. The items of a list are not checked here.
 */
function literalMismatch(type: string, text: string): string | undefined {
  const value = parsedJson(text.trim());
  if (type.endsWith('[]')) return Array.isArray(value) ? undefined : 'a list (JSON, e.g. ["a", "b"])';
  switch (type) {
    case 'integer':
      return Number.isInteger(value) ? undefined : 'an integer';
    case 'number':
      return typeof value === 'number' ? undefined : 'a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'true or false';
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value)
        ? undefined
        : 'an object (JSON, e.g. {"key": "value"})';
    default:
      return undefined;
  }
}

function outMapFindings(options: SubgraphInterfaceCheck): Diagnostic[] {
  const { graph, node, child, ref } = options;
  const attribute = node.attributes.out_map;
  if (attribute === undefined) return [];
  const parsed = parseOutMap(attribute.value);
  // A malformed out_map is rule output_schema's.
  if (!parsed.ok) return [];
  const outputs = child.settings.outputs;
  if (outputs.length === 0) {
    // Without outputs the node takes every key the child changed: the out_map is not read at all.
    const span = attributeSpan(attribute, nodeSpan(node));
    return [
      {
        rule: 'out_map_field',
        severity: 'error',
        message: `The out_map of "${node.id}" has no effect: ${ref} declares no outputs, so every key the child run changes comes back to "${node.id}" as it is (the whole child context), whatever out_map says.`,
        nodeId: node.id,
        fix: `Remove out_map, or declare what ${ref} returns: graph [outputs="<key>, <key>"] in ${ref}, listing the context keys its stages set, then map those keys here.`,
        ...(span === undefined ? {} : { span: plainSpan(span) }),
      },
    ];
  }
  const diagnostics: Diagnostic[] = [];
  for (const entry of parsed.entries) {
    if (outputs.some((key) => entry.field === key || entry.field.startsWith(`${key}.`))) continue;
    const near = didYouMean(entry.field, outputs);
    const span = spanInAttribute(graph, attribute, { offset: entry.fieldOffset, length: entry.field.length });
    diagnostics.push({
      rule: 'out_map_field',
      severity: 'error',
      message: `The out_map of "${node.id}" maps the field "${entry.field}", which is not among the outputs of ${ref} (${outputs.map((key) => `"${key}"`).join(', ')}): "${entry.key}" would never be set.`,
      nodeId: node.id,
      fix:
        near !== undefined
          ? `Did you mean "${near}"? Write out_map="${attribute.value.slice(0, entry.fieldOffset)}${near}${attribute.value.slice(entry.fieldOffset + entry.field.length)}".`
          : `Map one of the outputs of ${ref}, or add "${entry.field}" to its outputs.`,
      ...replacing(span, near),
    });
  }
  return diagnostics;
}
