import type { Diagnostic, LintRule } from '../diagnostic.js';
import { outMapConflicts } from '../out-map-targets.js';
import { spanInAttribute } from '../source-location.js';

/**
 * `out_map_conflict` (WARNING, README "Declared state and parallel joins"): stages of two or more branches of one
 * parallel block write the same context key through `out_map`, and the graph's `state` does not declare how their
 * values merge. With `state` the join fails when they differ; without it the fan-in keeps the selected branch's value
 * and drops the others'. Reported once per key and block, at the key in the second writer's `out_map`.
 */
export const outMapConflictRule: LintRule = {
  name: 'out_map_conflict',
  apply(graph, context) {
    const hasState = Object.keys(graph.settings.state).length > 0;
    const diagnostics: Diagnostic[] = [];
    for (const { key, parallelId, joinId, writes } of outMapConflicts(graph, context)) {
      const second = writes[1]!;
      const span = spanInAttribute(graph, second.attribute, { offset: second.offset, length: key.length });
      const join = joinId === undefined ? 'their join' : `fan-in "${joinId}"`;
      diagnostics.push({
        rule: 'out_map_conflict',
        severity: 'warning',
        message: `Branches of parallel node "${parallelId}" all write "${key}" through out_map (${writes.map((write) => `"${write.node.id}"`).join(', ')}), and the graph's state does not declare it: ${hasState ? `${join} fails when they write different values` : `${join} keeps the selected branch's value and drops the others'`}.`,
        nodeId: second.node.id,
        fix: `Declare how the values merge, e.g. state="${key}: append" (or replace, merge_object), or map each branch's field to a key of its own.`,
        ...(span === undefined ? {} : { span }),
      });
    }
    return diagnostics;
  },
};
