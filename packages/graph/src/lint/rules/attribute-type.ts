import { type AttributeKey, attributeDefinition, parseAttributeValue } from '../../attribute-schema.js';
import { forEachAttribute } from '../attribute-walk.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { attributeSpan } from '../source-location.js';

/** Keys whose invalid values have their own rule with the spec's severity. */
const REPORTED_ELSEWHERE = new Set(['fidelity', 'default_fidelity']);

/**
 * `attribute_type` (ERROR, DESIGN.md "Attributes"): a known key has a value of its type: integers,
 * booleans (`true|false`), durations (`250ms 900s 15m 2h 1d`), enumerations (`reasoning_effort`,
 * `join_policy`, `manager.actions`, `tools`). The typed field of a malformed value is undefined.
 */
export const attributeTypeRule: LintRule = {
  name: 'attribute_type',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    forEachAttribute(graph, (attribute, owner) => {
      const definition = attributeDefinition(attribute.key);
      if (definition === undefined || REPORTED_ELSEWHERE.has(attribute.key)) return;
      if (!definition.scopes.includes(owner.scope)) return;
      const parsed = parseAttributeValue(attribute.key as AttributeKey, attribute.value);
      if (parsed.ok) return;
      const written = attribute.writtenKey ?? attribute.key;
      diagnostics.push({
        rule: 'attribute_type',
        severity: 'error',
        message: `${owner.description} has ${written}="${attribute.value}", which is not valid: expected ${parsed.expected}.`,
        ...owner.where,
        fix: `Write ${written} as ${parsed.expected}.`,
        span: attributeSpan(attribute),
      });
    });
    return diagnostics;
  },
};
