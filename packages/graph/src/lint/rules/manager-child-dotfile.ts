import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/**
 * `manager_child_dotfile` (ERROR, spec §4.11): a `stack.manager_loop` node has a child pipeline to
 * supervise: `stack.child_dotfile` on the node or the graph. That the file exists and is valid is checked by
 * `prepareGraph` when it is given a file reader (`readGraphFile`, lint/graph-refs.ts), under the same rule name.
 * A manager without one whose edges lead to stages of its own graph (the supervising form of other runners, where
 * a manager supervises the stages after it) is told how to move those stages into a child pipeline.
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
      .map((node) => {
        // Other runners' supervising form: the manager's edges lead to the stages it supervises, in the same graph.
        const stages = [
          ...new Set(
            graph
              .outgoing(node.id)
              .map((edge) => graph.node(edge.to))
              .filter((target) => target !== undefined && graph.handlerType(target) !== 'exit')
              .map((target) => `"${target!.id}"`),
          ),
        ];
        const message = `Manager loop "${node.id}" has no stack.child_dotfile, so there is no child pipeline to supervise.`;
        return {
          rule: 'manager_child_dotfile',
          severity: 'error' as const,
          message:
            stages.length === 0
              ? message
              : `${message} Its edges lead to stages of this graph (${stages.join(', ')}), as in runners where a manager supervises the stages after it; here a manager supervises a pipeline of its own file, run as a child while it observes, steers and waits.`,
          nodeId: node.id,
          fix:
            stages.length === 0
              ? `Add "stack.child_dotfile"="child.dot" to "${node.id}" or to the graph.`
              : `Move the supervised stages into child.dot (with its own start and exit node) and add "stack.child_dotfile"="child.dot" to "${node.id}"; keep in this graph the edges for what happens after the child is done.`,
          span: nodeSpan(node),
        };
      });
  },
};
