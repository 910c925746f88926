import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { graphStylesheet } from '../model-stylesheet.js';
import { spanInAttribute } from '../source-location.js';

/**
 * `stylesheet_selector_unmatched` (WARNING, spec §8.3): a `#id`, `.class` or shape selector that
 * matches no node, usually a typo.
 */
export const stylesheetSelectorUnmatchedRule: LintRule = {
  name: 'stylesheet_selector_unmatched',
  apply(graph) {
    const parsed = graphStylesheet(graph);
    const attribute = graph.attributes.model_stylesheet;
    if (parsed.kind !== 'parsed' || attribute === undefined) return [];
    const nodes = [...graph.nodes.values()];
    const universe = {
      id: nodes.map((node) => node.id),
      class: [...new Set(nodes.flatMap((node) => node.classes))],
      shape: [...new Set(nodes.map((node) => node.shape))],
    };
    // The stylesheet parser already reports shape selectors that are no Graphviz shape.
    const reported = new Set(
      parsed.stylesheet.diagnostics
        .filter((finding) => finding.code === 'unknown_shape')
        .map((f) => f.span.offset),
    );
    const diagnostics: Diagnostic[] = [];
    for (const rule of parsed.stylesheet.rules) {
      const { kind, value } = rule.selector;
      // A glob selector (`#review_*`) is reported by dialect_alias; whether it matches is left to the run.
      if (kind === 'universal' || value.includes('*') || reported.has(rule.selector.span.offset)) continue;
      const candidates = universe[kind];
      if (candidates.includes(value)) continue;
      const written = kind === 'id' ? `#${value}` : kind === 'class' ? `.${value}` : value;
      const suggestion = didYouMean(value, candidates);
      const noun = kind === 'id' ? 'node id' : kind === 'class' ? 'class' : 'shape';
      diagnostics.push({
        rule: 'stylesheet_selector_unmatched',
        severity: 'warning',
        message: `model_stylesheet selector "${written}" matches no node: no node has that ${noun}.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
        fix: suggestion
          ? `Change the selector to "${kind === 'id' ? '#' : kind === 'class' ? '.' : ''}${suggestion}".`
          : `Remove the rule or add ${kind === 'class' ? `class="${value}"` : kind === 'id' ? `a node "${value}"` : `a node with shape=${value}`}.`,
        span: spanInAttribute(graph, attribute, rule.selector.span),
      });
    }
    return diagnostics;
  },
};
