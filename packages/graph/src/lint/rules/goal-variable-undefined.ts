import type { LintRule } from '../diagnostic.js';
import { attributeSpan } from '../source-location.js';

/** `goal_variable_undefined` (WARNING, spec §9.2): a prompt uses `$goal` but the graph has no `goal`, so it expands to "". */
export const goalVariableUndefinedRule: LintRule = {
  name: 'goal_variable_undefined',
  apply(graph) {
    if (graph.settings.goal.trim() !== '') return [];
    return [...graph.nodes.values()]
      .filter((node) => (node.attributes.prompt?.value ?? '').includes('$goal'))
      .map((node) => ({
        rule: 'goal_variable_undefined',
        severity: 'warning',
        message: `The prompt of "${node.id}" uses $goal, but graph "${graph.id}" has no goal, so $goal becomes an empty string.`,
        nodeId: node.id,
        fix: 'Add graph [goal="..."] at the top of the file.',
        span: attributeSpan(node.attributes.prompt),
      }));
  },
};
