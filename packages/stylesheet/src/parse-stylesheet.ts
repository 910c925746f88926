import { explainStylesheetFailure } from './explain-stylesheet-failure.js';
import { GRAPHVIZ_SHAPES } from './graphviz-shapes.js';
import { specificityOf } from './specificity-of.js';
import type {
  ParsedStylesheet,
  StylesheetDeclaration,
  StylesheetDiagnostic,
  StylesheetRule,
  StylesheetSelector,
} from './stylesheet-ast.js';
import { checkDeclaration, STYLESHEET_PROPERTY_ALIASES } from './stylesheet-properties.js';
import { matchStylesheet } from './to-stylesheet-ast.js';

function checkSelector(selector: StylesheetSelector): StylesheetDiagnostic | undefined {
  if ((selector.kind === 'id' || selector.kind === 'class') && selector.value.includes('*')) {
    const written = `${selector.kind === 'id' ? '#' : '.'}${selector.value}`;
    return {
      severity: 'warning',
      code: 'selector_glob',
      message: `Selector "${written}" is a glob (Amplifier): it is applied to every node whose ${selector.kind === 'id' ? 'id' : 'class'} matches, which spec §8.2 does not have.`,
      span: selector.span,
      fix: `To keep to spec §8.2, give the nodes a class (class="review") and select it with ".review".`,
    };
  }
  if (selector.kind !== 'shape' || GRAPHVIZ_SHAPES.has(selector.value)) return undefined;
  const name = selector.value;
  return {
    severity: 'warning',
    code: 'unknown_shape',
    message: `Selector "${name}" selects nodes with shape "${name}", which is not a Graphviz shape, so it matches no node.`,
    span: selector.span,
    fix: `To select the node with id ${name} write "#${name}"; to select the class ${name} write ".${name}".`,
    suggestion: `#${name}`,
  };
}

/**
 * Parses a model stylesheet (spec §8.2), the `model_stylesheet` graph attribute.
 *
 * Rules are `selector { property: value; ... }` with the selectors `*`, a shape name, `#id` and
 * `.class`; declarations are separated by `;` with an optional trailing `;`; values are bare
 * (`claude-opus-4-6`, `openai/gpt-5:free`) or quoted with `"` or `'`; whitespace, newlines and
 * comments (`/* ... *\/`, `// ...`) may appear between tokens. Each rule gets its specificity
 * (§8.3) and its 0-based source `order`. Spans are offsets inside `text`.
 *
 * Unknown properties, empty values, invalid `reasoning_effort` values, model globs and shape selectors
 * that are not Graphviz shapes are reported in `diagnostics` (see {@link StylesheetDiagnostic}); the
 * declarations concerned are left out of `rule.declarations` and never applied. Fabro's `model:` /
 * `provider:` are applied as `llm_model` / `llm_provider`, and `*` in `#id` / `.class` selectors as a glob,
 * each with a warning.
 *
 * @throws {StylesheetSyntaxError} when `text` does not match the grammar, with the offset, line and
 * column inside `text`.
 * @example
 * ```ts
 * const stylesheet = parseStylesheet('* { llm_model: claude-sonnet-4-5; } #review { reasoning_effort: high; }');
 * stylesheet.rules.map((rule) => rule.specificity); // [0, 3]
 * ```
 */
export function parseStylesheet(text: string): ParsedStylesheet {
  const result = matchStylesheet(text);
  if (!result.ok) {
    throw explainStylesheetFailure({
      source: text,
      failureOffset: result.offset,
      expected: result.expected,
      excerpt: result.excerpt,
    });
  }
  const diagnostics: StylesheetDiagnostic[] = [];
  const rules = result.rules.map((raw, order): StylesheetRule => {
    const selectorProblem = checkSelector(raw.selector);
    if (selectorProblem) diagnostics.push(selectorProblem);
    const declarations: StylesheetDeclaration[] = [];
    for (const written of raw.declarations) {
      const canonical = Object.hasOwn(STYLESHEET_PROPERTY_ALIASES, written.property)
        ? STYLESHEET_PROPERTY_ALIASES[written.property]!
        : undefined;
      const declaration = canonical === undefined ? written : { ...written, property: canonical };
      if (canonical !== undefined) {
        diagnostics.push({
          severity: 'warning',
          code: 'property_alias',
          message: `"${written.property}" is Fabro's name for the stylesheet property "${canonical}"; it is applied as ${canonical}.`,
          span: written.propertySpan,
          fix: `Rename "${written.property}" to "${canonical}".`,
          suggestion: canonical,
        });
      }
      const problem = checkDeclaration(declaration);
      if (problem) diagnostics.push(problem);
      else declarations.push(declaration);
    }
    return {
      selector: raw.selector,
      specificity: specificityOf(raw.selector),
      order,
      declarations,
      span: raw.span,
    };
  });
  return { rules, diagnostics };
}
