import type { LintRule } from '../diagnostic.js';
import { nodeSpan } from '../source-location.js';

/** `tool_command_required` (ERROR, spec §4.10): a `tool` node has a non-empty `tool_command`; without one it always fails. */
export const toolCommandRequiredRule: LintRule = {
  name: 'tool_command_required',
  apply(graph, context) {
    return [...graph.nodes.values()]
      .filter(
        (node) =>
          context.traitsOf(node).runsCommand === true &&
          (node.attributes.tool_command?.value.trim() ?? '') === '',
      )
      .map((node) => ({
        rule: 'tool_command_required',
        severity: 'error',
        message: `Tool node "${node.id}" has no tool_command, so it always fails.`,
        nodeId: node.id,
        fix: `Add tool_command="<shell command>" to "${node.id}".`,
        span: nodeSpan(node),
      }));
  },
};
