import { forEachAttribute } from '../attribute-walk.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';

/**
 * `dialect_alias` (WARNING; ERROR with `strict`, DESIGN.md "Dialect"): an attribute name of another
 * runner (`llm_prompt`, `node_type`, `context_fidelity_default`, `context_thread_default`,
 * `default_max_retry`) was read as its canonical key.
 */
export const dialectAliasRule: LintRule = {
  name: 'dialect_alias',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    forEachAttribute(graph, (attribute, owner) => {
      if (attribute.writtenKey === undefined) return;
      diagnostics.push({
        rule: 'dialect_alias',
        severity: context.strict ? 'error' : 'warning',
        message: `${owner.description} uses "${attribute.writtenKey}", another runner's name for "${attribute.key}"; it is read as ${attribute.key}.`,
        ...owner.where,
        fix: `Rename ${attribute.writtenKey} to ${attribute.key}.`,
        span: attribute.keySpan ?? attribute.valueSpan,
      });
    });
    return diagnostics;
  },
};
