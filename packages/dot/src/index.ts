export type {
  DotAst,
  DotAttribute,
  DotAttributeDeclaration,
  DotEdgeChainStatement,
  DotEdgeDefaultsStatement,
  DotGraphAttributesStatement,
  DotId,
  DotNodeDefaultsStatement,
  DotNodeStatement,
  DotStatement,
  DotSubgraphStatement,
  DotValue,
  DotValueKind,
  SourcePosition,
  SourceSpan,
} from './dot-ast.js';
export {
  createDotParseCache,
  type DotParseCache,
  type DotParseCacheOptions,
} from './dot-parse-cache.js';
export { DotSyntaxError, type DotSyntaxErrorOptions } from './errors/dot-syntax-error.js';
export { type FormatCodeFrameOptions, formatCodeFrame } from './format-code-frame.js';
export { type DotAttributeScope, type FormatDotOptions, formatDot } from './format-dot.js';
export { spanBetween } from './line-index.js';
export {
  type DotStatementStream,
  type ParseDotOptions,
  parseDot,
  parseDotIncrementally,
} from './parse-dot.js';
export { decodeDotString } from './to-dot-ast.js';
