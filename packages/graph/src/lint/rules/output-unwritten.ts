import { SPEC_HANDLER_TRAITS } from '../../handler-traits.js';
import { commaEntries } from '../../input-declaration.js';
import { declaresAttribute } from '../../spec-handler-declarations.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { outMapTargets } from '../out-map-targets.js';
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
 * a structured stage's fields, and of a handler's own keys), not a key a node's handler declares (`tool.output`) and
 * not one the run sets (`last_response`, `input.<name>`), nor a foreach's `collect` field. The run's `output.json` then lacks it. An agent may still
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
    for (const node of graph.nodes.values()) {
      if (context.traitsOf(node).runsSubgraph === true) return [];
      if (!Object.hasOwn(SPEC_HANDLER_TRAITS, graph.handlerType(node))) return [];
      prefixes.push(`${node.id}.`);
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
      const span = spanInAttribute(graph, attribute, { offset: at + part.indexOf(key), length: key.length });
      diagnostics.push({
        rule: 'output_unwritten',
        severity: 'warning',
        message: `Graph attribute outputs of "${graph.id}" names "${key}", which no stage writes (no out_map maps a field to it, and it is no "<node id>.<field>" key): the run's output.json will lack it unless an agent writes it through status.json.`,
        fix: `Map a structured stage's field to it (out_map="summary -> ${key}" with an output_schema), name the key a stage writes (e.g. "<node id>.summary"), or remove it from outputs.`,
        ...(span === undefined ? {} : { span }),
      });
    }
    return diagnostics;
  },
};
