import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { outMapTargets } from '../out-map-targets.js';
import { findSchemaField, inlineOutputSchema } from '../output-schema-fields.js';
import { replacing, spanInAttribute } from '../source-location.js';

/**
 * `out_map_field` (ERROR, README "Typed data"): an `out_map` entry maps a field that the stage's `output_schema` does
 * not have (`out_map="sumary -> summary"` with `output_schema="summary: string"`), so its key would never be set;
 * the fix names the near property. Checked when the schema is written in the DOT file (inline JSON or the compact
 * form), or is a `.json` file `prepareGraph` has read (`LintContext.outputSchemaFiles`), at the levels whose
 * properties it lists. Reported at the field.
 */
export const outMapFieldRule: LintRule = {
  name: 'out_map_field',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const target of outMapTargets(graph)) {
      const file = context.outputSchemaFiles?.get(target.node.id);
      const schema = inlineOutputSchema(target.node) ?? file?.schema;
      if (schema === undefined) continue;
      const found = findSchemaField(schema, target.field);
      if (found.found) continue;
      const near = didYouMean(found.field, found.known);
      const value = target.attribute.value;
      const span = spanInAttribute(graph, target.attribute, {
        offset: target.fieldOffset,
        length: target.field.length,
      });
      diagnostics.push({
        rule: 'out_map_field',
        severity: 'error',
        message: `The out_map of "${target.node.id}" maps the field "${target.field}", which its output_schema${file === undefined ? '' : ` (${file.path})`} does not have (it has ${found.known.map((known) => `"${known}"`).join(', ') || 'no properties'}): "${target.key}" would never be set.`,
        nodeId: target.node.id,
        fix:
          near === undefined
            ? `Map a field the output_schema has, or add "${found.field}" to ${file === undefined ? 'the output_schema' : file.path}.`
            : `Did you mean "${near}"? Write out_map="${value.slice(0, target.fieldOffset)}${near}${target.field.slice(found.field.length)}${value.slice(target.fieldOffset + target.field.length)}".`,
        ...replacing(
          span,
          near === undefined ? undefined : `${near}${target.field.slice(found.field.length)}`,
        ),
      });
    }
    return diagnostics;
  },
};
