import { conditionAttributes } from '../condition-attributes.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { parseConditionOnce } from '../edge-conditions.js';
import { spanInAttribute } from '../source-location.js';

/**
 * `condition_syntax` (ERROR, spec §7.2, §10.2): every edge `condition` and node
 * `manager.stop_condition` parses. The span points at the offending character inside the value.
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
          ? `The condition language has only =, != and && (spec §10.2); "${operator}" is not supported. Split the edge into several edges or set a context key the condition can compare.`
          : `Write clauses like outcome=success or context.key!=value joined by && (expected ${error.expected}).`,
        span: spanInAttribute(graph, attribute, { offset: error.location.offset, length: error.length }),
      });
    }
    return diagnostics;
  },
};
