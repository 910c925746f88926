export {
  StylesheetSyntaxError,
  type StylesheetSyntaxErrorLocation,
  type StylesheetSyntaxErrorOptions,
} from './errors/stylesheet-syntax-error.js';
export { parseStylesheet } from './parse-stylesheet.js';
export {
  type ResolvedStyleProperty,
  resolveProperties,
  ruleMatches,
  type StylesheetNode,
} from './resolve-properties.js';
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
export {
  REASONING_EFFORT_VALUES,
  STYLESHEET_PROPERTIES,
  type StylesheetProperty,
} from './stylesheet-properties.js';
