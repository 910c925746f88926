import type { GraphAttribute } from '../../graph.js';
import { forEachAttribute } from '../attribute-walk.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';

function written(attribute: GraphAttribute): string {
  return attribute.writtenKey ?? attribute.key;
}

function where(attribute: GraphAttribute): string {
  const start = attribute.keySpan?.start;
  return start === undefined ? 'earlier' : `at line ${start.line}`;
}

/**
 * `attribute_overridden` (WARNING): a node or graph attribute given an explicit value, then a different explicit
 * value for the same key (a repeated node statement, `goal` set twice, or the key twice in one statement). Spec §2
 * merges them and the later value wins, so the earlier one is silently lost; that is almost always a mistake. Not
 * reported: a `node [...]` default replaced by an explicit value, or the same value written twice. Reported at the
 * key of each later value, using `GraphAttribute.replaced`.
 */
export const attributeOverriddenRule: LintRule = {
  name: 'attribute_overridden',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    forEachAttribute(graph, (attribute, owner) => {
      if (attribute.replaced === undefined) return;
      // Earliest first: a key set three times yields two findings, in source order.
      const chain: GraphAttribute[] = [];
      for (
        let current: GraphAttribute | undefined = attribute;
        current !== undefined;
        current = current.replaced
      ) {
        chain.unshift(current);
      }
      for (let index = 1; index < chain.length; index++) {
        const earlier = chain[index - 1]!;
        const later = chain[index]!;
        const laterKey = written(later);
        const earlierKey = written(earlier) === laterKey ? '' : ` (as ${written(earlier)})`;
        diagnostics.push({
          rule: 'attribute_overridden',
          severity: 'warning',
          message: `${owner.description} sets ${laterKey} ${where(later)}, replacing a different value set ${where(earlier)}${earlierKey}; only the value ${where(later)} is used.`,
          ...owner.where,
          fix: `Remove one of the two ${laterKey} values, or merge them into one statement.`,
          span: later.keySpan ?? later.valueSpan,
        });
      }
    });
    return diagnostics;
  },
};
