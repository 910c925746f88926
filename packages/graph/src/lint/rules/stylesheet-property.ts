import type { LintRule } from '../diagnostic.js';
import { graphStylesheet } from '../model-stylesheet.js';
import { spanInAttribute } from '../source-location.js';

/**
 * `stylesheet_property` (WARNING, spec §8.4): the stylesheet parser's own findings, such as a property
 * other than `llm_model`, `llm_provider` and `reasoning_effort`, placed in the DOT file.
 */
export const stylesheetPropertyRule: LintRule = {
  name: 'stylesheet_property',
  apply(graph) {
    const parsed = graphStylesheet(graph);
    const attribute = graph.attributes.model_stylesheet;
    if (parsed.kind !== 'parsed' || attribute === undefined) return [];
    return parsed.stylesheet.diagnostics.map((finding) => ({
      rule: 'stylesheet_property',
      severity: 'warning',
      message: `model_stylesheet: ${finding.message}`,
      fix: finding.fix,
      span: spanInAttribute(graph, attribute, finding.span),
    }));
  },
};
