import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { outMapConflicts, outMapTargets } from '../out-map-targets.js';
import { spanInAttribute } from '../source-location.js';

/**
 * `out_map_state` (WARNING, README "Typed data"): in a graph that declares `state`, an `out_map` entry writes a
 * context key the declaration does not have, often a typo of a declared field (then the fix names it). Reported at
 * the key. A key that branches of one parallel block share is `out_map_conflict`'s finding instead.
 */
export const outMapStateRule: LintRule = {
  name: 'out_map_state',
  apply(graph, context) {
    const declared = Object.keys(graph.settings.state);
    if (declared.length === 0) return [];
    const shared = new Set(outMapConflicts(graph, context).map((conflict) => conflict.key));
    const diagnostics: Diagnostic[] = [];
    for (const target of outMapTargets(graph)) {
      if (declared.includes(target.key) || shared.has(target.key)) continue;
      const near = didYouMean(target.key, declared);
      const span = spanInAttribute(graph, target.attribute, {
        offset: target.offset,
        length: target.key.length,
      });
      diagnostics.push({
        rule: 'out_map_state',
        severity: 'warning',
        message: `The out_map of "${target.node.id}" writes "${target.key}", which the graph's state does not declare (it declares ${declared.map((key) => `"${key}"`).join(', ')}).`,
        nodeId: target.node.id,
        fix:
          near === undefined
            ? `Declare it: add "${target.key}: replace" (or append, merge_object) to the graph's state, or map the field to a declared key.`
            : `Did you mean "${near}"? Map the field to it, or add "${target.key}: replace" to the graph's state.`,
        ...(span === undefined ? {} : { span }),
      });
    }
    return diagnostics;
  },
};
