/**
 * The Ohm semantics that turns a matched chunk into our plain AST (`dot-ast.ts`), with source spans
 * mapped back to the whole file by the chunk's offset. No Ohm type leaves this module.
 *
 * Alternatives that the grammar accepts only to reject them (`strict`, undirected `graph`, `--`, quoted
 * or numeric ids, edges to subgraphs, keys without a value) throw a `DotSyntaxError` here, where the
 * exact span and a specific fix are known.
 */
import type { MatchResult, Node } from 'ohm-js';
import { type ChunkText, toSourceOffset } from './chunk-text.js';
import type {
  DotAttribute,
  DotId,
  DotStatement,
  DotSubgraphStatement,
  DotValue,
  DotValueKind,
  SourceSpan,
} from './dot-ast.js';
import { dotGrammar } from './dot-grammar.js';
import { spanAt } from './line-index.js';
import { type ParseContext, syntaxError } from './parse-context.js';

/** The file being parsed and the chunk being matched (whose offsets map back to the file). */
export interface ChunkContext {
  readonly parse: ParseContext;
  readonly chunk: ChunkText;
}

/** The value of `Header`: the graph id. */
export interface DotHeader {
  readonly id: DotId;
}

/** The value of `SubgraphOpen`: the subgraph id, if named. */
export interface DotSubgraphOpen {
  readonly id: DotId | undefined;
}

const KEYWORDS = new Set(['strict', 'digraph', 'graph', 'subgraph', 'node', 'edge']);

type Actions = Record<string, (this: Node, ...children: Node[]) => unknown>;

function contextOf(node: Node): ChunkContext {
  return node.args.context as ChunkContext;
}

/** The span of `node`; pass the context when `node` is a child whose operation has not run yet. */
function spanOf(node: Node, context: ChunkContext = contextOf(node)): SourceSpan {
  const { parse, chunk } = context;
  return spanAt(
    parse.lines,
    toSourceOffset(chunk, node.source.startIdx),
    toSourceOffset(chunk, node.source.endIdx),
    parse.filename,
  );
}

/** The source text of `node`: unlike `sourceString`, it includes elided string bodies. */
function textOf(node: Node, context: ChunkContext = contextOf(node)): string {
  const { parse, chunk } = context;
  return parse.source.slice(
    toSourceOffset(chunk, node.source.startIdx),
    toSourceOffset(chunk, node.source.endIdx),
  );
}

function fail(node: Node, shortMessage: string, hint: string, target: Node = node): never {
  const { parse, chunk } = contextOf(node);
  throw syntaxError(
    parse,
    toSourceOffset(chunk, target.source.startIdx),
    toSourceOffset(chunk, target.source.endIdx),
    shortMessage,
    hint,
  );
}

function ast<T>(node: Node, context: ChunkContext): T {
  return node.ast(context) as T;
}

function astOfEach<T>(iteration: Node, context: ChunkContext): T[] {
  return iteration.children.map((child) => ast<T>(child, context));
}

/** Decodes the text of a quoted string (quotes included): `\"` `\\` `\n` `\t`, `\` + newline joins lines. */
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

function idFor(node: Node): DotId {
  return { name: node.sourceString, span: spanOf(node) };
}

function rejectQuotedId(node: Node, what: 'node' | 'graph' | 'subgraph'): never {
  const quoted = textOf(node);
  const text = decodeDotString(quoted);
  const suggestion = suggestIdentifier(text);
  const hint =
    what === 'subgraph'
      ? `Use a bare name and put the text in label: subgraph cluster_${suggestion} { label=${JSON.stringify(text)} ... }`
      : what === 'graph'
        ? `Use a bare name and put the text in label: digraph ${suggestion} { label=${JSON.stringify(text)} ... }`
        : `Use a bare id and put the text in label: ${suggestion} [label=${JSON.stringify(text)}]`;
  fail(node, `${capitalise(what)} ids must be bare identifiers; ${quoted} is quoted`, hint);
}

function rejectNumericId(node: Node, what: 'node' | 'graph' | 'subgraph'): never {
  const text = node.sourceString;
  const suggestion = suggestIdentifier(text);
  const hint =
    what === 'node'
      ? `Start the id with a letter or "_" and put the number in label: ${suggestion} [label="${text}"]`
      : `Start the name with a letter or "_", e.g. ${what === 'graph' ? 'digraph' : 'subgraph'} ${suggestion}`;
  fail(node, `${capitalise(what)} ids must be bare identifiers; ${text} is a number`, hint);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function attributeList(blocks: Node, context: ChunkContext): DotAttribute[] {
  return blocks.children.flatMap((block) => ast<DotAttribute[]>(block, context));
}

function scalar(kind: DotValueKind) {
  return function (this: Node, _token: Node): DotValue {
    const raw = this.sourceString;
    return { kind, raw, value: raw, span: spanOf(this) };
  };
}

const actions: Actions = {
  Graph(header, statements, _close) {
    const context = contextOf(this);
    const { id } = ast<DotHeader>(header, context);
    return { id, statements: astOfEach<DotStatement>(statements, context), span: spanOf(this) };
  },
  Header(strict, kind, id, open) {
    const context = contextOf(this);
    if (strict.numChildren > 0) {
      fail(
        this,
        '"strict" graphs are not supported',
        'Remove "strict": an Attractor pipeline is a plain digraph (spec §2.3).',
        strict,
      );
    }
    ast(kind, context);
    if (id.numChildren === 0) {
      fail(
        this,
        'The graph has no name',
        'Name it with a bare identifier: digraph my_pipeline { ... }',
        open,
      );
    }
    return { id: ast<DotId>(id.children[0]!, context) };
  },
  GraphKind_directed(_keyword) {
    return undefined;
  },
  GraphKind_undirected(keyword) {
    fail(
      this,
      'Undirected graphs are not supported',
      'Write "digraph" instead of "graph": pipelines are directed (spec §2.3).',
      keyword,
    );
  },
  GraphId_bare(_identifier) {
    return idFor(this);
  },
  GraphId_quoted(_string) {
    rejectQuotedId(this, 'graph');
  },
  GraphId_numeric(_number) {
    rejectNumericId(this, 'graph');
  },
  Statements(statements) {
    return astOfEach<DotStatement>(statements, contextOf(this));
  },
  Statement(statement, _semicolon) {
    return ast<DotStatement>(statement, contextOf(this));
  },
  Stmt_defaults(keyword, blocks) {
    const context = contextOf(this);
    const kind = ast<'graphAttributes' | 'nodeDefaults' | 'edgeDefaults'>(keyword, context);
    return { kind, attributes: attributeList(blocks, context), span: spanOf(this) };
  },
  defaultsKw_graph(_keyword) {
    return 'graphAttributes';
  },
  defaultsKw_node(_keyword) {
    return 'nodeDefaults';
  },
  defaultsKw_edge(_keyword) {
    return 'edgeDefaults';
  },
  Stmt_subgraph(subgraph) {
    return ast<DotSubgraphStatement>(subgraph, contextOf(this));
  },
  Stmt_attributeDeclaration(attribute) {
    return {
      kind: 'attributeDeclaration',
      attribute: ast<DotAttribute>(attribute, contextOf(this)),
      span: spanOf(this),
    };
  },
  Stmt_edgeChain(first, tails, blocks) {
    const context = contextOf(this);
    return {
      kind: 'edgeChain',
      nodes: [ast<DotId>(first, context), ...astOfEach<DotId>(tails, context)],
      attributes: attributeList(blocks, context),
      span: spanOf(this),
    };
  },
  Stmt_node(id, blocks) {
    const context = contextOf(this);
    return {
      kind: 'node',
      id: ast<DotId>(id, context),
      attributes: attributeList(blocks, context),
      span: spanOf(this),
    };
  },
  Subgraph(open, statements, _close) {
    const context = contextOf(this);
    const { id } = ast<DotSubgraphOpen>(open, context);
    const statementList = astOfEach<DotStatement>(statements, context);
    return id === undefined
      ? { kind: 'subgraph', statements: statementList, span: spanOf(this) }
      : { kind: 'subgraph', id, statements: statementList, span: spanOf(this) };
  },
  SubgraphOpen_named(_keyword, id, _open) {
    return { id: id.numChildren > 0 ? ast<DotId>(id.children[0]!, contextOf(this)) : undefined };
  },
  SubgraphOpen_anonymous(_open) {
    return { id: undefined };
  },
  SubgraphId_bare(_identifier) {
    return idFor(this);
  },
  SubgraphId_quoted(_string) {
    rejectQuotedId(this, 'subgraph');
  },
  SubgraphId_numeric(_number) {
    rejectNumericId(this, 'subgraph');
  },
  EdgeTail(operator, target) {
    const context = contextOf(this);
    ast(operator, context);
    return ast<DotId>(target, context);
  },
  EdgeOp_directed(_arrow) {
    return undefined;
  },
  EdgeOp_undirected(_dashes) {
    fail(
      this,
      'Undirected edge "--" is not supported',
      'Write edges with "->": pipelines are directed (spec §2.3).',
    );
  },
  EdgeTarget_node(id) {
    return ast<DotId>(id, contextOf(this));
  },
  EdgeTarget_subgraph(_subgraph) {
    fail(
      this,
      'An edge to a subgraph is not supported',
      'Write one edge per target node: a -> b and a -> c instead of a -> { b c }.',
    );
  },
  NodeId_bare(_name) {
    const lowerCase = this.sourceString.toLowerCase();
    if (lowerCase === 'digraph' || lowerCase === 'strict') {
      fail(
        this,
        'A graph cannot contain another graph',
        'Close the first graph with "}" before this one, and put each graph in a file of its own (spec §2.3).',
      );
    }
    if (KEYWORDS.has(lowerCase)) {
      fail(
        this,
        `"${this.sourceString}" is a keyword and cannot be a node id`,
        `Rename the node, e.g. ${this.sourceString.toLowerCase()}_step [label="${this.sourceString}"]. DOT keywords are case-insensitive.`,
      );
    }
    return idFor(this);
  },
  NodeId_quoted(_string) {
    rejectQuotedId(this, 'node');
  },
  NodeId_numeric(_number) {
    rejectNumericId(this, 'node');
  },
  AttrBlock(_open, items, _close) {
    return astOfEach<DotAttribute>(items, contextOf(this));
  },
  AttrItem_pair(attribute, _separator) {
    return ast<DotAttribute>(attribute, contextOf(this));
  },
  AttrItem_keyOnly(key, _separator) {
    const name = ast<string>(key, contextOf(this));
    fail(
      this,
      `Attribute "${name}" has no value`,
      `Write it as ${name}="...". If it is the second word of an unquoted value, quote the whole value.`,
      key,
    );
  },
  Attribute(key, _equals, value) {
    const context = contextOf(this);
    return {
      key: ast<string>(key, context),
      keySpan: spanOf(key, context),
      value: ast<DotValue>(value, context),
      span: spanOf(this),
    } satisfies DotAttribute;
  },
  Value_string(first, _plus, rest) {
    const context = contextOf(this);
    const parts = [first, ...rest.children].map((part) => decodeDotString(textOf(part, context)));
    return {
      kind: 'string',
      raw: textOf(this, context),
      value: parts.join(''),
      span: spanOf(this),
    } satisfies DotValue;
  },
  Value_scalar(value) {
    return ast<DotValue>(value, contextOf(this));
  },
  scalar_float: scalar('float'),
  scalar_duration: scalar('duration'),
  scalar_integer: scalar('integer'),
  scalar_boolean: scalar('boolean'),
  scalar_bare: scalar('bare'),
  key_bare(_name) {
    return this.sourceString;
  },
  key_quoted(_string) {
    return decodeDotString(textOf(this));
  },
};

const semantics = dotGrammar.createSemantics().addOperation<unknown>('ast(context)', actions);

/** Builds the AST value of a successful match of `Header`, `Statements` or `Graph`. */
export function toDotAst<T>(match: MatchResult, context: ChunkContext): T {
  return semantics(match).ast(context) as T;
}
