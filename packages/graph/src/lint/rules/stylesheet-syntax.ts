import type { LintRule } from '../diagnostic.js';
import { graphStylesheet } from '../model-stylesheet.js';
import { spanInAttribute } from '../source-location.js';

/** `stylesheet_syntax` (ERROR, spec §7.2, §8.2): the graph's `model_stylesheet` parses. */
export const stylesheetSyntaxRule: LintRule = {
  name: 'stylesheet_syntax',
  apply(graph) {
    const parsed = graphStylesheet(graph);
    const attribute = graph.attributes.model_stylesheet;
    if (parsed.kind !== 'invalid' || attribute === undefined) return [];
    return [
      {
        rule: 'stylesheet_syntax',
        severity: 'error',
        message: `The model_stylesheet of graph "${graph.id}" does not parse: ${parsed.error.shortMessage}.`,
        fix: 'Write rules like `* { llm_model: gpt-5.2; }`, `.code { ... }` or `#node_id { ... }` with `property: value;` declarations (spec §8.2).',
        span: spanInAttribute(graph, attribute, { offset: parsed.error.location.offset, length: 1 }),
      },
    ];
  },
};
