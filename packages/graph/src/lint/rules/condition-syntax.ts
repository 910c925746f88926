import { conditionAttributes } from '../condition-attributes.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { parseConditionOnce } from '../edge-conditions.js';
import { spanInAttribute } from '../source-location.js';

/**
 * `condition_syntax` (ERROR, spec §7.2, §10.2): every edge `condition` and node
 * `manager.stop_condition` parses (with the §10.7 extensions; `dialect_alias` reports those). The span points at
 * the offending character inside the value.
 */
export const conditionSyntaxRule: LintRule = {
  name: 'condition_syntax',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    for (const { attribute, where, owner } of conditionAttributes(graph)) {
      const { error } = parseConditionOnce(attribute.value);
      if (error === undefined) continue;
      const operator = error.unsupportedOperator;
      diagnostics.push({
        rule: 'condition_syntax',
        severity: 'error',
        message: `${owner} has an invalid ${attribute.key} "${attribute.value}": ${error.shortMessage}.`,
        ...where,
        fix: operator
          ? `"${operator}" is not supported: conditions compare a key with =, !=, <, >, <=, >=, contains, !contains or matches, and combine clauses with &&, || and ! (spec §10.2, §10.7). Split the edge into several edges or set a context key the condition can compare.`
          : `Write clauses like outcome=success or context.key!=value joined by && or || (expected ${error.expected}).`,
        span: spanInAttribute(graph, attribute, { offset: error.location.offset, length: error.length }),
      });
    }
    return diagnostics;
  },
};
