/**
 * The typed AST of the Attractor DOT subset (spec §2.1-§2.13), as returned by `parseDot`.
 *
 * The AST is plain data: no Ohm type crosses the package boundary (CONTRIBUTING.md "Grammars"). Every node
 * keeps its source span so that diagnostics can point at the exact place (spans compute their line and column
 * when read: see {@link SourceSpan}). Attribute values stay strings here; `@attractor/graph` types them.
 */

/** A position in the source text. `line` and `column` are 1-based; `offset` is 0-based, in UTF-16 code units. */
export interface SourcePosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/**
 * A half-open range `[start, end)` of the source text, with the file it came from when known.
 *
 * The spans of a parsed AST are not plain objects: to keep the AST of a large file small, each holds two offsets
 * and works out `start` and `end` (new objects) from the file's line index when they are read. They read like plain
 * spans (`span.start.line`, `'start' in span`, `span.filename`), `JSON.stringify` gives the plain span, and `toEqual`
 * compares their offsets; but a spread `{ ...span }` or `structuredClone(span)` does not copy `start`, `end` and
 * `filename`. To make a span of your own from one, copy those by name: `{ start: span.start, end: span.end }`.
 * The span of a `DotSyntaxError` is a plain object.
 */
export interface SourceSpan {
  readonly start: SourcePosition;
  readonly end: SourcePosition;
  readonly filename?: string;
}

/** An identifier (graph, node or subgraph id) and where it was written. */
export interface DotId {
  readonly name: string;
  readonly span: SourceSpan;
  /**
   * True for a graph id written as a quoted string (`digraph "sp-workflow"`): legal Graphviz that spec §2.2 does not
   * have (it asks for an identifier); `name` is the decoded text. Absent otherwise.
   */
  readonly quoted?: true;
}

/**
 * What kind of token a value was written as (spec §2.2, §2.4).
 * `string` covers quoted strings, including `"a" + "b"` concatenations.
 */
export type DotValueKind = 'string' | 'integer' | 'float' | 'boolean' | 'duration' | 'bare';

/** An attribute value: the raw source text, the decoded text, and the token kind. */
export interface DotValue {
  readonly kind: DotValueKind;
  /** Exactly as written, quotes, escapes and `+` included. */
  readonly raw: string;
  /** Decoded text: quotes removed, escapes (`\"`, `\\`, `\n`, `\t`) applied, concatenations joined. */
  readonly value: string;
  readonly span: SourceSpan;
}

/** One `key = value` pair. Keys may be bare, dotted (`human.default_choice`) or quoted. */
export interface DotAttribute {
  readonly key: string;
  readonly keySpan: SourceSpan;
  readonly value: DotValue;
  /** From the first character of the key to the last of the value. */
  readonly span: SourceSpan;
}

/** `graph [ ... ]`: graph attributes. */
export interface DotGraphAttributesStatement {
  readonly kind: 'graphAttributes';
  readonly attributes: readonly DotAttribute[];
  readonly span: SourceSpan;
}

/** `key = value` at statement level: one graph attribute (spec §2.2 GraphAttrDecl). */
export interface DotAttributeDeclaration {
  readonly kind: 'attributeDeclaration';
  readonly attribute: DotAttribute;
  readonly span: SourceSpan;
}

/** `node [ ... ]`: defaults for nodes declared later in the same scope (spec §2.11). */
export interface DotNodeDefaultsStatement {
  readonly kind: 'nodeDefaults';
  readonly attributes: readonly DotAttribute[];
  readonly span: SourceSpan;
}

/** `edge [ ... ]`: defaults for edges declared later in the same scope (spec §2.11). */
export interface DotEdgeDefaultsStatement {
  readonly kind: 'edgeDefaults';
  readonly attributes: readonly DotAttribute[];
  readonly span: SourceSpan;
}

/** `id [ ... ]`: a node statement. Several `[..][..]` blocks are merged into `attributes` in order. */
export interface DotNodeStatement {
  readonly kind: 'node';
  readonly id: DotId;
  readonly attributes: readonly DotAttribute[];
  readonly span: SourceSpan;
}

/**
 * `A -> B -> C [ ... ]`: an edge chain, kept as written. `nodes` has at least two ids; the graph
 * layer expands it into one edge per consecutive pair, each with all the attributes (spec §2.9).
 */
export interface DotEdgeChainStatement {
  readonly kind: 'edgeChain';
  readonly nodes: readonly DotId[];
  readonly attributes: readonly DotAttribute[];
  readonly span: SourceSpan;
}

/** `subgraph [id] { ... }` or an anonymous `{ ... }` block, with its own statements (spec §2.10). */
export interface DotSubgraphStatement {
  readonly kind: 'subgraph';
  readonly id?: DotId;
  readonly statements: readonly DotStatement[];
  readonly span: SourceSpan;
}

/** Any statement of a graph or subgraph body. Discriminated by `kind`. */
export type DotStatement =
  | DotGraphAttributesStatement
  | DotAttributeDeclaration
  | DotNodeDefaultsStatement
  | DotEdgeDefaultsStatement
  | DotNodeStatement
  | DotEdgeChainStatement
  | DotSubgraphStatement;

/** A whole `digraph` file. */
export interface DotAst {
  readonly kind: 'digraph';
  readonly id: DotId;
  readonly statements: readonly DotStatement[];
  readonly span: SourceSpan;
  readonly filename?: string;
}
