import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/**
 * `manager_child_dotfile` (ERROR, spec §4.11): a `stack.manager_loop` node has a child pipeline to
 * supervise: `stack.child_dotfile` on the node or the graph. That the file exists and is valid is checked by
 * `prepareGraph` when it is given a file reader (`readGraphFile`, lint/graph-refs.ts), under the same rule name.
 */
export const managerChildDotfileRule: LintRule = {
  name: 'manager_child_dotfile',
  apply(graph, context) {
    if ((graph.attributes['stack.child_dotfile']?.value.trim() ?? '') !== '') return [];
    return [...graph.nodes.values()]
      .filter(
        (node) =>
          context.traitsOf(node).supervisesChild === true &&
          (node.attributes['stack.child_dotfile']?.value.trim() ?? '') === '',
      )
      .map((node) => ({
        rule: 'manager_child_dotfile',
        severity: 'error',
        message: `Manager loop "${node.id}" has no stack.child_dotfile, so there is no child pipeline to supervise.`,
        nodeId: node.id,
        fix: `Add "stack.child_dotfile"="child.dot" to "${node.id}" or to the graph.`,
        span: nodeSpan(node),
      }));
  },
};
