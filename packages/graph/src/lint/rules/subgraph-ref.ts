import type { LintRule } from '../diagnostic.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `subgraph_ref` (ERROR, spec §9.4): a `subgraph` node names the DOT file it runs in `graph_ref`. Whether that
 * file exists, is valid and does not lead back to this one is checked by `prepareGraph` when it is given
 * `readGraphFile` (the CLI always does); those findings carry this rule id too.
 */
export const subgraphRefRule: LintRule = {
  name: 'subgraph_ref',
  apply(graph, context) {
    return [...graph.nodes.values()]
      .filter(
        (node) =>
          context.traitsOf(node).runsSubgraph === true &&
          (node.attributes.graph_ref?.value.trim() ?? '') === '',
      )
      .map((node) => ({
        rule: 'subgraph_ref',
        severity: 'error',
        message: `Subgraph node "${node.id}" has no graph_ref, so there is no pipeline to run.`,
        nodeId: node.id,
        fix: `Add graph_ref="child.dot" to "${node.id}" (a path relative to this DOT file).`,
        span: attributeSpan(node.attributes.graph_ref, nodeSpan(node)),
      }));
  },
};
