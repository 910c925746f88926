import { expandVariables } from '../expand-variables.js';
import type { Graph, GraphNode } from '../graph.js';
import type { Transform } from './transform.js';

/**
 * Built-in transform (spec §9.2): replaces every `$goal` in node prompts with the graph's `goal`
 * (plain string replacement, by `expandVariables`). Only the typed `node.prompt` changes; `node.attributes.prompt` keeps the
 * text as written so its source span stays exact.
 */
export const expandGoalVariableTransform: Transform = {
  name: 'expand_goal_variable',
  apply(graph) {
    const goal = graph.settings.goal;
    let changed = false;
    const nodes: GraphNode[] = [...graph.nodes.values()].map((node) => {
      if (!node.prompt.includes('$goal')) return node;
      changed = true;
      return { ...node, prompt: expandVariables(node.prompt, { goal }).text };
    });
    return changed ? graph.with({ nodes }) : graph.with({});
  },
};

/** Convenience: `expandGoalVariableTransform.apply(graph)`. */
export function expandGoalVariable(graph: Graph): Graph {
  return expandGoalVariableTransform.apply(graph);
}
