import { attributeDefinition, isUnitlessDuration } from '../../attribute-schema.js';
import { forEachAttribute } from '../attribute-walk.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { attributeSpan, valueEdit } from '../source-location.js';

/**
 * `duration_unit` (WARNING, spec §2.4): a duration written without a unit (`timeout="300"`). It is
 * read as seconds, as the runners that write it mean; the spec's Duration requires a unit.
 */
export const durationUnitRule: LintRule = {
  name: 'duration_unit',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    forEachAttribute(graph, (attribute, owner) => {
      if (attributeDefinition(attribute.key)?.expected.startsWith('a duration') !== true) return;
      if (!isUnitlessDuration(attribute.value)) return;
      const seconds = attribute.value.trim();
      diagnostics.push({
        rule: 'duration_unit',
        severity: 'warning',
        message: `${owner.description} has ${attribute.key}="${seconds}" without a unit; it is read as ${seconds} seconds.`,
        ...owner.where,
        fix: `Write ${attribute.key}="${seconds}s" (units: ms, s, m, h, d).`,
        ...valueEdit(attribute, `${seconds}s`),
        span: attributeSpan(attribute),
      });
    });
    return diagnostics;
  },
};
