/**
 * Builds our plain AST (`dot-ast.ts`) from the concrete syntax tree of a matched chunk, with source
 * spans mapped back to the whole file by the chunk's offsets. No Ohm type leaves this module.
 *
 * The CST comes from `ohm-js/v18` (ohm-js 17.5's forward-compatible `getCstRoot`, the tree API of
 * Ohm 18) rather than from an Ohm 17 `Semantics`: the semantics wraps every CST node it visits in an
 * object with its own source interval, which cost more than the match itself on large files (issue 2,
 * "Speed and memory"). Each function below reads one rule of `dot.ohm`; the alternatives that the
 * grammar accepts only to reject them (`strict`, undirected `graph`, `--`, quoted or numeric ids, edges
 * to subgraphs, keys without a value) throw a `DotSyntaxError` here, where the exact span and a
 * specific fix are known.
 */
import type { MatchResult } from 'ohm-js';
import { getCstRoot } from 'ohm-js/v18';
import { type ChunkText, toSourceOffset } from './chunk-text.js';
import type { CstNode } from './cst-node.js';
import type {
  DotAttribute,
  DotId,
  DotStatement,
  DotSubgraphStatement,
  DotValue,
  DotValueKind,
  SourceSpan,
} from './dot-ast.js';
import { closingQuoteBefore, earlyClosingQuoteMessage } from './early-closing-quote.js';
import { spanAt } from './line-index.js';
import { intern, type ParseContext, syntaxError } from './parse-context.js';

/** The file being parsed and the chunk being matched (whose offsets map back to the file). */
export interface ChunkContext {
  readonly parse: ParseContext;
  readonly chunk: ChunkText;
  /**
   * The first items of long attribute blocks, matched on their own (split-attribute-blocks.ts), by the source offset
   * of the block's `[`: they come before the items the chunk holds. Default: none.
   */
  readonly leadingItems?: ReadonlyMap<number, readonly DotAttribute[]>;
}

/** What `Graph` (the whole file in one match) yields. */
export interface DotGraphBody {
  readonly id: DotId;
  readonly statements: DotStatement[];
  readonly span: SourceSpan;
}

const KEYWORDS = new Set(['strict', 'digraph', 'graph', 'subgraph', 'node', 'edge']);

/**
 * What a statement `<keyword> [...]` sets defaults for (keywords in any case,
 * docs/architecture.md "Parsing").
 */
const DEFAULTS_KINDS: ReadonlyMap<string, 'graphAttributes' | 'nodeDefaults' | 'edgeDefaults'> = new Map([
  ['graph', 'graphAttributes'],
  ['node', 'nodeDefaults'],
  ['edge', 'edgeDefaults'],
]);

/** The token kind of each rule that `Value` can apply. */
const VALUE_KINDS: ReadonlyMap<string, DotValueKind> = new Map([
  ['Value_string', 'string'],
  ['float', 'float'],
  ['duration', 'duration'],
  ['integer', 'integer'],
  ['boolean', 'boolean'],
  ['bareValue', 'bare'],
]);

/** The graph id of a match of `Header`. */
export function buildHeader(match: MatchResult, context: ChunkContext): DotId {
  return new AstBuilder(context).header(getCstRoot(match));
}

/**
 * The statements of the tree of a match of `Statements` (`getCstRoot`), read against `context.chunk`: any chunk whose
 * text is the matched text (a tree from a `DotParseCache` serves every chunk with that text).
 */
export function buildStatementsOfTree(root: CstNode, context: ChunkContext): DotStatement[] {
  return new AstBuilder(context).statements(root.children[0]!);
}

/** The attributes of a match of `AttrItems` (a piece of a long attribute block). */
export function buildAttributeItems(match: MatchResult, context: ChunkContext): DotAttribute[] {
  const builder = new AstBuilder(context);
  return getCstRoot(match).children[0]!.children.map((item) => builder.attributeItem(item));
}

/** The subgraph id (if named) of a match of `SubgraphOpen`. */
export function buildSubgraphOpen(match: MatchResult, context: ChunkContext): DotId | undefined {
  return new AstBuilder(context).subgraphOpen(getCstRoot(match));
}

/** The id, statements and span of a match of `Graph` (the whole file at once; for tests). */
export function buildGraph(match: MatchResult, context: ChunkContext): DotGraphBody {
  const builder = new AstBuilder(context);
  const root = getCstRoot(match);
  const [header, statements] = root.children;
  return {
    id: builder.header(header!),
    statements: builder.statements(statements!),
    span: builder.span(root),
  };
}

/**
 * Decodes the text of a quoted string, quotes included (`"a\"b"` gives `a"b`): `\"`, `\\`, `\n` and `\t` are
 * decoded, a backslash before a line break joins the lines, any other backslash sequence stays as written (spec §2.4).
 */
export function decodeDotString(quoted: string): string {
  const body = quoted.slice(1, -1);
  if (!body.includes('\\')) return body;
  return body.replace(/\\(\r\n|[\s\S])/g, (sequence, character: string) => {
    switch (character) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case '\n':
      case '\r\n':
        return '';
      default:
        // Graphviz escapes such as `\l` or a regex's `\d` stay as written.
        return sequence;
    }
  });
}

/** A bare identifier that could replace a quoted or numeric id, for the fix hint. */
function suggestIdentifier(text: string): string {
  const words = text
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (words.length === 0) return 'node_1';
  return /^[0-9]/.test(words) ? `n${words}` : words;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The first child, looking through `?` and iterated-sequence wrappers, applied from rule `ctorName`. */
function findChild(node: CstNode, ctorName: string): CstNode | undefined {
  for (const child of node.children) {
    if (child.ctorName === ctorName) return child;
    if (child.ctorName === '_opt' || child.ctorName === '_seq') {
      const found = findChild(child, ctorName);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The items of the iteration of rule `ctorName` among `node`'s children (`Rule*` or `Rule+`). Found by
 * what the items are, not by position: the CST merges adjacent empty iterations into one.
 */
function itemsOf(node: CstNode, ctorName: string): readonly CstNode[] {
  for (const child of node.children) {
    if (child.ctorName === '_list' && child.children[0]?.ctorName === ctorName) return child.children;
  }
  return [];
}

class AstBuilder {
  private readonly parse: ParseContext;
  private readonly chunk: ChunkText;
  private readonly leadingItems: ReadonlyMap<number, readonly DotAttribute[]> | undefined;

  constructor(context: ChunkContext) {
    this.parse = context.parse;
    this.chunk = context.chunk;
    this.leadingItems = context.leadingItems;
  }

  // ---- rules ----

  header(node: CstNode): DotId {
    const [strict, kind, id, open] = node.children as [CstNode, CstNode, CstNode, CstNode];
    if (strict.children.length > 0) {
      this.fail(
        strict.children[0]!,
        '"strict" graphs are not supported',
        'Remove "strict": an Attractor pipeline is a plain digraph (spec §2.3).',
      );
    }
    const keyword = kind.children[0]!;
    if (keyword.ctorName === 'graphKw') {
      this.fail(
        keyword,
        'Undirected graphs are not supported',
        'Write "digraph" instead of "graph": pipelines are directed (spec §2.3).',
      );
    }
    if (id.children.length === 0) {
      this.fail(open, 'The graph has no name', 'Name it with a bare identifier: digraph my_pipeline { ... }');
    }
    return this.namedId(id.children[0]!, 'graph');
  }

  statements(list: CstNode): DotStatement[] {
    const statements: DotStatement[] = [];
    for (const stmt of list.children) statements.push(this.statement(stmt.children[0]!));
    return statements;
  }

  /** One alternative of `Stmt`; its span leaves out a closing `;`. */
  statement(node: CstNode): DotStatement {
    if (node.ctorName === 'Stmt_nodeOrEdge') return this.nodeOrEdge(node);
    const first = node.children[0]!;
    if (node.ctorName === 'Stmt_attributeDeclaration') {
      return { kind: 'attributeDeclaration', attribute: this.attribute(first), span: this.span(first) };
    }
    // Stmt_subgraph
    return this.subgraph(first);
  }

  /** `NodeId EdgeTail* AttrBlock*`: an edge chain, `node`/`edge`/`graph [...]` defaults, or a node. */
  nodeOrEdge(node: CstNode): DotStatement {
    const id = node.children[0]!;
    const tails = itemsOf(node, 'EdgeTail');
    const blocks = itemsOf(node, 'AttrBlock');
    const last = blocks.at(-1) ?? tails.at(-1) ?? id;
    if (tails.length > 0) {
      const nodes = [this.nodeId(id)];
      for (const tail of tails) nodes.push(this.edgeTail(tail));
      return {
        kind: 'edgeChain',
        nodes,
        attributes: this.attributeList(blocks),
        span: this.spanBetween(id, last),
      };
    }
    const defaults = blocks.length > 0 ? DEFAULTS_KINDS.get(this.text(id).toLowerCase()) : undefined;
    if (defaults !== undefined) {
      return { kind: defaults, attributes: this.attributeList(blocks), span: this.spanBetween(id, last) };
    }
    return {
      kind: 'node',
      id: this.nodeId(id),
      attributes: this.attributeList(blocks),
      span: this.spanBetween(id, last),
    };
  }

  subgraph(node: CstNode): DotSubgraphStatement {
    const [open, statements] = node.children as [CstNode, CstNode];
    const id = this.subgraphOpen(open);
    const statementList = this.statements(statements);
    const span = this.span(node);
    return id === undefined
      ? { kind: 'subgraph', statements: statementList, span }
      : { kind: 'subgraph', id, statements: statementList, span };
  }

  subgraphOpen(node: CstNode): DotId | undefined {
    const alternative = node.children[0]!;
    if (alternative.ctorName === 'SubgraphOpen_anonymous') return undefined;
    const id = alternative.children[1]!;
    return id.children.length > 0 ? this.namedId(id.children[0]!, 'subgraph') : undefined;
  }

  edgeTail(node: CstNode): DotId {
    const [operator, target] = node.children as [CstNode, CstNode];
    if (operator.sourceString === '--') {
      this.fail(
        operator,
        'Undirected edge "--" is not supported',
        'Write edges with "->": pipelines are directed (spec §2.3).',
      );
    }
    if (target.ctorName === 'Subgraph') {
      this.fail(
        target,
        'An edge to a subgraph is not supported',
        'Write one edge per target node: a -> b and a -> c instead of a -> { b c }.',
      );
    }
    return this.nodeId(target);
  }

  /** `NodeId`: a bare identifier that is not a keyword. */
  nodeId(node: CstNode): DotId {
    const token = node.children[0]!;
    if (token.ctorName !== 'identifier') return this.rejectId(token, 'node');
    const name = this.text(token);
    const lowerCase = name.toLowerCase();
    if (lowerCase === 'digraph' || lowerCase === 'strict') {
      this.fail(
        token,
        'A graph cannot contain another graph',
        'Close the first graph with "}" before this one, and put each graph in a file of its own (spec §2.3).',
      );
    }
    if (KEYWORDS.has(lowerCase)) {
      this.fail(
        token,
        `"${name}" is a keyword and cannot be a node id`,
        `Rename the node, e.g. ${lowerCase}_step [label="${name}"]. DOT keywords are case-insensitive.`,
      );
    }
    return { name, span: this.span(token) };
  }

  /**
   * `GraphId` or `SubgraphId`: a bare identifier, or for a graph also a quoted string (legal Graphviz that several
   * runners' pipelines use, `digraph "sp-workflow"`; marked `quoted` for lint).
   */
  namedId(node: CstNode, what: 'graph' | 'subgraph'): DotId {
    const token = node.children[0]!;
    if (what === 'graph' && token.ctorName === 'string') {
      return { name: decodeDotString(this.text(token)), span: this.span(token), quoted: true };
    }
    if (token.ctorName !== 'identifier') return this.rejectId(token, what);
    return { name: this.text(token), span: this.span(token) };
  }

  rejectId(token: CstNode, what: 'node' | 'graph' | 'subgraph'): never {
    const written = this.text(token);
    if (token.ctorName === 'string') {
      const text = decodeDotString(written);
      const suggestion = suggestIdentifier(text);
      const hint =
        what === 'subgraph'
          ? `Use a bare name and put the text in label: subgraph cluster_${suggestion} { label=${JSON.stringify(text)} ... }`
          : what === 'graph'
            ? `Use a bare name and put the text in label: digraph ${suggestion} { label=${JSON.stringify(text)} ... }`
            : `Use a bare id and put the text in label: ${suggestion} [label=${JSON.stringify(text)}]`;
      this.fail(token, `${capitalise(what)} ids must be bare identifiers; ${written} is quoted`, hint);
    }
    const suggestion = suggestIdentifier(written);
    const hint =
      what === 'node'
        ? `Start the id with a letter or "_" and put the number in label: ${suggestion} [label="${written}"]`
        : `Start the name with a letter or "_", e.g. ${what === 'graph' ? 'digraph' : 'subgraph'} ${suggestion}`;
    this.fail(token, `${capitalise(what)} ids must be bare identifiers; ${written} is a number`, hint);
  }

  /** The attributes of `AttrBlock*`, in order; several blocks merge. */
  attributeList(blocks: readonly CstNode[]): DotAttribute[] {
    const attributes: DotAttribute[] = [];
    for (const block of blocks) {
      const leading = this.leadingItems?.get(toSourceOffset(this.chunk, block.children[0]!.source.startIdx));
      if (leading !== undefined) for (const attribute of leading) attributes.push(attribute);
      for (const item of block.children[1]!.children) attributes.push(this.attributeItem(item));
    }
    return attributes;
  }

  /** `AttrItem`: `key = Value` with an optional separator; a key alone is rejected. */
  attributeItem(node: CstNode): DotAttribute {
    const key = node.children[0]!;
    const value = findChild(node, 'Value');
    if (value === undefined) {
      const name = this.key(key);
      const keyOffset = toSourceOffset(this.chunk, key.source.startIdx);
      // `x="1" y` is a key without a value; `x="1"y` is a string that ended early.
      const quote = closingQuoteBefore(this.parse.source, keyOffset, { adjacent: true });
      if (quote !== undefined) {
        const { shortMessage, hint } = earlyClosingQuoteMessage(`"${name}"`);
        throw syntaxError(this.parse, quote, quote + 1, shortMessage, hint);
      }
      this.fail(
        key,
        `Attribute "${name}" has no value`,
        `Write it as ${name}="...". If it is the second word of an unquoted value, quote the whole value.`,
      );
    }
    return this.attributeOf(key, value, this.spanBetween(key, value));
  }

  attribute(node: CstNode): DotAttribute {
    const [key, , value] = node.children as [CstNode, CstNode, CstNode];
    return this.attributeOf(key, value, this.span(node));
  }

  attributeOf(key: CstNode, value: CstNode, span: SourceSpan): DotAttribute {
    return { key: this.key(key), keySpan: this.span(key), value: this.value(value), span };
  }

  key(node: CstNode): string {
    const text = this.text(node);
    return intern(this.parse, node.children[0]!.ctorName === 'string' ? decodeDotString(text) : text);
  }

  value(node: CstNode): DotValue {
    const token = node.children[0]!;
    const kind = VALUE_KINDS.get(token.ctorName)!;
    const raw = this.text(token);
    if (kind !== 'string') return { kind, raw, value: raw, span: this.span(token) };
    // Value_string: string ("+" string)*
    const [first, rest] = token.children as [CstNode, CstNode];
    let decoded = decodeDotString(this.text(first));
    for (const row of rest.children) decoded += decodeDotString(this.text(row.children[1]!));
    return { kind, raw, value: decoded, span: this.span(token) };
  }

  // ---- positions ----

  span(node: CstNode): SourceSpan {
    return this.spanBetween(node, node);
  }

  /** From the start of `first` to the end of `last`. */
  spanBetween(first: CstNode, last: CstNode): SourceSpan {
    const { chunk, parse } = this;
    return spanAt(
      parse.lines,
      toSourceOffset(chunk, first.source.startIdx),
      toSourceOffset(chunk, last.source.endIdx),
    );
  }

  /** The source text of `node`, with whatever the chunk elided. */
  text(node: CstNode): string {
    const { chunk } = this;
    return this.parse.source.slice(
      toSourceOffset(chunk, node.source.startIdx),
      toSourceOffset(chunk, node.source.endIdx),
    );
  }

  fail(node: CstNode, shortMessage: string, hint: string): never {
    const { chunk } = this;
    throw syntaxError(
      this.parse,
      toSourceOffset(chunk, node.source.startIdx),
      toSourceOffset(chunk, node.source.endIdx),
      shortMessage,
      hint,
    );
  }
}
