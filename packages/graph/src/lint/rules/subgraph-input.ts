import { SUBGRAPH_INPUT_PREFIX } from '../../attribute-schema.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { plainSpan } from '../source-location.js';

/** An input name, as `inputs` declares it: a letter or `_`, then letters, digits and `_`. */
const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `subgraph_input` (ERROR, README "Typed data"): an `input.<name>` attribute of a `subgraph` node whose `<name>` can
 * name no input (`input.the-file`, `input.`), so no child pipeline can take it. Against the child's own `inputs`
 * (an undeclared input, a required one not given) `prepareGraph` checks when it is given `readGraphFile` (the CLI
 * always does); those findings carry this rule id too.
 */
export const subgraphInputRule: LintRule = {
  name: 'subgraph_input',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      if (context.traitsOf(node).runsSubgraph !== true) continue;
      for (const attribute of Object.values(node.attributes)) {
        if (!attribute.key.startsWith(SUBGRAPH_INPUT_PREFIX)) continue;
        const name = attribute.key.slice(SUBGRAPH_INPUT_PREFIX.length);
        if (INPUT_NAME.test(name)) continue;
        const span = attribute.keySpan ?? attribute.valueSpan;
        diagnostics.push({
          rule: 'subgraph_input',
          severity: 'error',
          message: `Subgraph node "${node.id}" has ${attribute.key}, but "${name}" is not an input name (a letter or _, then letters, digits and _).`,
          nodeId: node.id,
          fix: `Write ${SUBGRAPH_INPUT_PREFIX}<name> with the name of an input the child pipeline declares (inputs="<name>: <type>").`,
          ...(span === undefined ? {} : { span: plainSpan(span) }),
        });
      }
    }
    return diagnostics;
  },
};
