import { conditionAttributes } from '../condition-attributes.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { parseConditionOnce } from '../edge-conditions.js';
import { replacing, spanInAttribute } from '../source-location.js';

/** The keys of spec §10.2 that read the node's outcome rather than the run context. */
const OUTCOME_KEYS = ['outcome', 'preferred_label'] as const;

/**
 * `condition_key` (ERROR, spec §10.2, §10.4): a condition key that is a near-miss of `outcome` or
 * `preferred_label` (`outcom`, `Outcome`, `prefered_label`; see `didYouMean`). Spec §10.4 reads an
 * unqualified key from the run context, so `outcom=success` compares a context value nothing sets with
 * "success" instead of testing the outcome, and the run stops with "no eligible edge". It is an error,
 * like `condition_syntax`, because the route is wrong as written. A key meant as a context key is written
 * qualified (`context.outcom`) and is not reported. The span points at the key inside the condition.
 * Edge `condition`s and node `manager.stop_condition`s are checked.
 */
export const conditionKeyRule: LintRule = {
  name: 'condition_key',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    for (const { attribute, where, owner } of conditionAttributes(graph)) {
      const { ast } = parseConditionOnce(attribute.value);
      // An unparseable condition is reported by condition_syntax.
      if (ast === undefined) continue;
      for (const clause of ast.clauses) {
        const key = clause.key.path;
        if (key.startsWith('context.')) continue;
        const meant = didYouMean(key, OUTCOME_KEYS);
        if (meant === undefined) continue;
        const reads = meant === 'outcome' ? "the node's outcome" : "the outcome's preferred label";
        const keyEnd = clause.key.span.offset + clause.key.span.length;
        const rest = attribute.value.slice(keyEnd, clause.span.offset + clause.span.length);
        diagnostics.push({
          rule: 'condition_key',
          severity: 'error',
          message: `${owner} has ${attribute.key} "${attribute.value}" whose key "${key}" is read from the run context (spec §10.4), not ${reads}. Did you mean "${meant}"?`,
          ...where,
          fix: `Write ${meant}${rest}; if "${key}" really is a context key, write context.${key}${rest}.`,
          ...replacing(spanInAttribute(graph, attribute, clause.key.span), meant),
        });
      }
    }
    return diagnostics;
  },
};
