import type { StylesheetSelector, StylesheetSelectorKind, StylesheetSpecificity } from './stylesheet-ast.js';

const SPECIFICITY = {
  universal: 0,
  shape: 1,
  class: 2,
  id: 3,
} as const satisfies Record<StylesheetSelectorKind, StylesheetSpecificity>;

/**
 * The specificity of a selector, spec §8.3: `*` 0, shape 1, `.class` 2, `#id` 3. Higher wins; at
 * equal specificity the later rule wins.
 */
export function specificityOf(selector: Pick<StylesheetSelector, 'kind'>): StylesheetSpecificity {
  return SPECIFICITY[selector.kind];
}
