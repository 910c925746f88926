import type { Diagnostic, LintRule } from '../diagnostic.js';
import { spanInAttribute } from '../source-location.js';

const VARIABLE = /\$([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)/g;

/**
 * `prompt_variable` (WARNING, spec §4.5): `$goal` (and `$input.<name>` and `$item.<name>`, README "Typed data", and
 * `$parallel.outputs` in a fan-in's prompt) are the only template
 * variables; any other `$name`
 * (`$task`, `$context.x`, often from other runners) is sent to the model literally. ALL_CAPS names
 * (`$KILROY_RUN_ID`) are taken for environment variables meant for the agent's shell and not reported.
 */
export const promptVariableRule: LintRule = {
  name: 'prompt_variable',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      const attribute = node.attributes.prompt;
      if (attribute === undefined) continue;
      // A fan-in expands $parallel.outputs into every branch's (or foreach item's) full output.
      const joins = context.traitsOf(node).joinsBranches === true;
      const reported = new Set<string>();
      for (const match of attribute.value.matchAll(VARIABLE)) {
        const name = match[1]!;
        // ALL_CAPS names are environment variables the agent's shell expands, written literally on purpose.
        // $input.<name> is expanded; lint input_variable checks that the name is declared. So is $item.<name>
        // inside a foreach body (lint foreach checks that one binds the name).
        if (
          name === 'goal' ||
          name.startsWith('input.') ||
          name.startsWith('item.') ||
          (joins && name === 'parallel.outputs') ||
          /^[A-Z][A-Z0-9_]*$/.test(name) ||
          reported.has(name)
        )
          continue;
        reported.add(name);
        diagnostics.push({
          rule: 'prompt_variable',
          severity: 'warning',
          message: `The prompt of "${node.id}" uses $${name}, which is not expanded (only $goal is); the model sees "$${name}" literally.`,
          nodeId: node.id,
          fix: `Write the value into the prompt, or register a transform that expands $${name}.`,
          span: spanInAttribute(graph, attribute, { offset: match.index, length: match[0].length }),
        });
      }
    }
    return diagnostics;
  },
};
