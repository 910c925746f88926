export type {
  StylesheetSyntaxErrorLocation,
  StylesheetSyntaxErrorOptions,
} from './errors/stylesheet-syntax-error.js';
export { StylesheetSyntaxError } from './errors/stylesheet-syntax-error.js';
export { GRAPHVIZ_SHAPES } from './graphviz-shapes.js';
export { parseStylesheet } from './parse-stylesheet.js';
export type { ResolvedStyleProperty, StylesheetNode } from './resolve-properties.js';
export { resolveProperties, ruleMatches } from './resolve-properties.js';
export { specificityOf } from './specificity-of.js';
export type {
  ParsedStylesheet,
  StylesheetDeclaration,
  StylesheetDiagnostic,
  StylesheetDiagnosticCode,
  StylesheetRule,
  StylesheetSelector,
  StylesheetSelectorKind,
  StylesheetSpan,
  StylesheetSpecificity,
} from './stylesheet-ast.js';
export type { StylesheetProperty } from './stylesheet-properties.js';
export { BACKEND_VALUES, REASONING_EFFORT_VALUES, STYLESHEET_PROPERTIES } from './stylesheet-properties.js';
