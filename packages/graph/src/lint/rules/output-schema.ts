import { parseOutMap, parseOutputSchemaDeclaration } from '../../output-schema-declaration.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { spanInAttribute } from '../source-location.js';

/**
 * `output_schema` (ERROR, README "Typed data"): a node's `output_schema` is neither a JSON object, a `.json` path nor
 * the compact form, or its `out_map` is not `field -> context.key` entries. Reported at the offending part.
 */
export const outputSchemaRule: LintRule = {
  name: 'output_schema',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      for (const attribute of [node.attributes.output_schema, node.attributes.out_map]) {
        if (attribute === undefined) continue;
        const parsed =
          attribute.key === 'out_map'
            ? parseOutMap(attribute.value)
            : parseOutputSchemaDeclaration(attribute.value);
        if (parsed.ok) continue;
        for (const error of parsed.errors) {
          const span = spanInAttribute(graph, attribute, error);
          diagnostics.push({
            rule: 'output_schema',
            severity: 'error',
            message: `The ${attribute.key} of "${node.id}": ${error.message}.`,
            nodeId: node.id,
            fix:
              attribute.key === 'out_map'
                ? 'Write out_map="verdict -> review.verdict, issues -> review.issues".'
                : 'Write output_schema="verdict: string, issues?: string[]", an inline JSON Schema object, or the path of a .json schema file.',
            ...(span === undefined ? {} : { span }),
          });
        }
      }
    }
    return diagnostics;
  },
};
