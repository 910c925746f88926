import type { LintRule } from '../diagnostic.js';
import { graphStylesheet } from '../model-stylesheet.js';
import { spanInAttribute } from '../source-location.js';

/**
 * Stylesheet findings about another runner's way of writing a stylesheet (Fabro's `model:`, Amplifier's globs):
 * reported as `dialect_alias`, an error with `--strict`.
 */
const DIALECT_CODES: ReadonlySet<string> = new Set(['property_alias', 'model_glob', 'selector_glob']);

/**
 * `stylesheet_property` (spec §8.4): the stylesheet parser's own findings, placed in the DOT file:
 * an unknown property (WARNING, with the closest of `llm_model`, `llm_provider`, `reasoning_effort`),
 * an invalid value (ERROR, e.g. `reasoning_effort: extreme`), a selector naming no Graphviz shape (WARNING).
 */
export const stylesheetPropertyRule: LintRule = {
  name: 'stylesheet_property',
  apply(graph, context) {
    const parsed = graphStylesheet(graph);
    const attribute = graph.attributes.model_stylesheet;
    if (parsed.kind !== 'parsed' || attribute === undefined) return [];
    return parsed.stylesheet.diagnostics.map((finding) => ({
      rule: DIALECT_CODES.has(finding.code) ? 'dialect_alias' : 'stylesheet_property',
      severity: DIALECT_CODES.has(finding.code) && context.strict ? 'error' : finding.severity,
      message: `model_stylesheet: ${finding.message}`,
      fix: finding.fix,
      span: spanInAttribute(graph, attribute, finding.span),
    }));
  },
};
