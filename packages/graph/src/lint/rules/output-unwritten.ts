import type { GraphNode } from '../../graph.js';
import { SPEC_HANDLER_TRAITS } from '../../handler-traits.js';
import { commaEntries } from '../../input-declaration.js';
import { parseOutMap } from '../../output-schema-declaration.js';
import { declaresAttribute } from '../../spec-handler-declarations.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { outMapTargets } from '../out-map-targets.js';
import { findSchemaField, inlineOutputSchema } from '../output-schema-fields.js';
import { spanInAttribute } from '../source-location.js';

/** Keys every run or stage sets (spec §5.1, §4.5): an output may name them without a stage mapping them. */
const RUN_KEYS = new Set(['outcome', 'preferred_label', 'last_stage', 'last_response', 'current_node']);
/** Namespaces the engine and its handlers fill (run inputs, the goal, usage, gates, child pipelines). */
const RUN_PREFIXES = [
  'graph.',
  'input.',
  'internal.',
  'usage.',
  'human.',
  'parallel.',
  'stack.',
  'foreach.',
  'item.',
];

/**
 * `output_unwritten` (WARNING, README "Typed data"): a key of the graph's `outputs` that no stage writes: no `out_map`
 * entry maps a field to it (or to a key it reads inside), it is not `<node id>.<field>` of a node (the default place of
 * a structured stage's fields, and of a handler's own keys; for a stage whose `output_schema` is written in the DOT
 * file, only a field of that schema, and none when the stage has an `out_map`), not a key a node's handler declares
 * (`tool.output`), not one the run sets (`last_response`, `input.<name>`), nor a foreach's `collect` field. The run's
 * `output.json` then lacks it. An agent may still
 * write it through `status.json`, hence a warning. Reported at the key in `outputs`. Not checked in a graph with a
 * node that runs a sub-pipeline (its child's keys come back) or whose handler is not a built-in one (a plug-in may
 * write any key).
 */
export const outputUnwrittenRule: LintRule = {
  name: 'output_unwritten',
  apply(graph, context) {
    const attribute = graph.attributes.outputs;
    if (attribute === undefined || graph.settings.outputs.length === 0) return [];
    const split = commaEntries(attribute.value);
    const mapped = outMapTargets(graph).map((target) => target.key);
    const prefixes = [...RUN_PREFIXES];
    // Nodes whose keys under "<node id>." are known: a structured stage with its schema in the DOT file.
    const structured = new Map<string, StructuredWrites>();
    for (const node of graph.nodes.values()) {
      if (context.traitsOf(node).runsSubgraph === true) return [];
      if (!Object.hasOwn(SPEC_HANDLER_TRAITS, graph.handlerType(node))) return [];
      const writes = structuredWrites(node);
      if (writes === undefined) prefixes.push(`${node.id}.`);
      else structured.set(node.id, writes);
      const declared = context.traitsOf(node).contextKeys;
      if (declared !== undefined) prefixes.push(declared.prefix);
      // A foreach writes one result per item to its `collect` field.
      const collect = node.attributes.collect?.value.trim();
      if (collect !== undefined && declaresAttribute(context.declarationOf(node), 'collect'))
        mapped.push(collect);
    }
    const diagnostics: Diagnostic[] = [];
    for (const { part, at } of split.entries) {
      const key = part.trim();
      const written =
        RUN_KEYS.has(key) ||
        prefixes.some((prefix) => key.startsWith(prefix)) ||
        mapped.some((target) => key === target || key.startsWith(`${target}.`));
      if (written) continue;
      const dot = key.indexOf('.');
      const owner = dot < 0 ? undefined : structured.get(key.slice(0, dot));
      const missing = owner?.missing(key.slice(dot + 1));
      if (owner !== undefined && missing === undefined) continue;
      const span = spanInAttribute(graph, attribute, { offset: at + part.indexOf(key), length: key.length });
      const why = missing ?? 'no out_map maps a field to it, and it is no "<node id>.<field>" key';
      diagnostics.push({
        rule: 'output_unwritten',
        severity: 'warning',
        message: `Graph attribute outputs of "${graph.id}" names "${key}", which no stage writes (${why}): the run's output.json will lack it unless an agent writes it through status.json.`,
        fix: `Map a structured stage's field to it (out_map="summary -> ${key}" with an output_schema), name the key a stage writes (e.g. "<node id>.summary"), or remove it from outputs.`,
        ...(span === undefined ? {} : { span }),
      });
    }
    return diagnostics;
  },
};

/** What a structured stage writes under "<node id>.": `missing(field)` says why it does not write that field. */
interface StructuredWrites {
  missing(field: string): string | undefined;
}

/**
 * The keys a stage with an `output_schema` written in the DOT file puts under "<node id>." (README "Typed data"):
 * with an `out_map`, none (its entries write their own keys); else the schema's properties, or `output` for a value
 * that is no object. `undefined` for any other node: its keys under "<node id>." are not known.
 */
function structuredWrites(node: GraphNode): StructuredWrites | undefined {
  const schema = inlineOutputSchema(node);
  if (schema === undefined) return undefined;
  const outMap =
    node.attributes.out_map === undefined ? undefined : parseOutMap(node.attributes.out_map.value);
  if (outMap?.ok === false) return undefined;
  if (outMap !== undefined && outMap.entries.length > 0) {
    return {
      missing: (field) =>
        `"${node.id}" maps its output by out_map, which does not map to "${node.id}.${field}"`,
    };
  }
  return {
    missing(field) {
      if (schema.type !== undefined && schema.type !== 'object') {
        return field === 'output' || field.startsWith('output.')
          ? undefined
          : `"${node.id}" writes its output, which is no object, to "${node.id}.output"`;
      }
      const found = findSchemaField(schema, field);
      return found.found
        ? undefined
        : `"${node.id}" writes the fields of its output_schema under "${node.id}.", which has no "${found.field}"`;
    },
  };
}
