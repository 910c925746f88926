/**
 * The DOT printer behind `attractor fmt` and the language server's formatting: one canonical layout of a file in the
 * Attractor DOT subset, with every comment kept. What the attributes mean (their order, which values may stay bare)
 * is the caller's policy (`formatPipeline` of `@attractor/graph` gives Attractor's); this module knows the syntax.
 */
import type {
  DotAst,
  DotAttribute,
  DotStatement,
  DotSubgraphStatement,
  DotValue,
  SourceSpan,
} from './dot-ast.js';
import { createParseContext } from './parse-context.js';
import { parseDot } from './parse-dot.js';
import { scanDot } from './scan-dot.js';

/** Where an attribute is written: on the graph (or a subgraph), on nodes or on edges. */
export type DotAttributeScope = 'graph' | 'node' | 'edge';

/** Options of {@link formatDot}. */
export interface FormatDotOptions {
  /** File name for the `DotSyntaxError` of a file that does not parse. Default: none. */
  readonly filename?: string;
  /**
   * Sort key of an attribute within one attribute list: lower first; equal keys keep the order they were written in
   * (so a repeated key, whose last value wins, keeps its meaning). Default: 0 for every key (the written order).
   */
  readonly attributeRank?: (key: string, scope: DotAttributeScope) => number;
  /**
   * Whether the value of `key` is written without quotes when it can be (a value that is an identifier or a number, in
   * both this grammar and Graphviz's). `false` quotes it. Default: keep the value as it was written.
   */
  readonly bareValue?: (key: string, scope: DotAttributeScope) => boolean;
  /** Columns an attribute list may fill on one line before it is written one attribute per line. Default: 100. */
  readonly lineWidth?: number;
}

/** A comment or `#` line of the source: `[start, end)`. */
interface Comment {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** Something comments attach to: a statement or an attribute. */
interface Item {
  readonly start: number;
  readonly end: number;
}

/** Comments by the item they belong to (see {@link distribute}). */
interface Placement {
  readonly leading: Comment[][];
  readonly trailing: Comment[][];
  /** Comments inside each item's text, for it to place among its own parts. */
  readonly inner: Comment[][];
  /** After the last item, before the container closes. */
  readonly dangling: Comment[];
}

const INDENT = '  ';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A value both this grammar and Graphviz read as one unquoted ID: an identifier or a number. */
const GRAPHVIZ_BARE_VALUE = /^(?:[A-Za-z_][A-Za-z0-9_]*|-?[0-9]+|-?[0-9]*\.[0-9]+)$/;
/** The keyword of a `node`, `edge` or `graph [...]` statement, and the scope of its attributes. */
const DEFAULTS_KEYWORDS = {
  nodeDefaults: ['node', 'node'],
  edgeDefaults: ['edge', 'edge'],
  graphAttributes: ['graph', 'graph'],
} as const satisfies Record<string, readonly [string, DotAttributeScope]>;
const KEYWORDS = new Set(['strict', 'digraph', 'graph', 'subgraph', 'node', 'edge']);

/**
 * Formats a DOT pipeline: `digraph name {`, one statement per line indented by two spaces per level, statements in
 * their order, keywords in lower case, `a -> b -> c` chains kept, one `[...]` list per statement with `, ` between
 * attributes (one attribute per line when the list does not fit in `lineWidth`, holds a multi-line value or a
 * comment), attributes ordered by `attributeRank`, quoting by `bareValue`, dotted and other non-identifier keys quoted,
 * no semicolons, at most one blank line between statements (where the source had at least one), a final newline.
 * Comments and `#` lines stay before, or on the same line after, the statement or attribute they were written at;
 * one written inside a statement's head moves before it. String contents are never changed (escapes and line
 * breaks stay as written). The result parses to the same graph, and formatting it again changes nothing.
 *
 * @param source - The DOT text.
 * @param options - Attribute order and quoting policy, line width.
 * @returns The formatted text.
 * @throws {DotSyntaxError} when the text does not parse (nothing is formatted then).
 */
export function formatDot(source: string, options: FormatDotOptions = {}): string {
  const ast = parseDot(source, options.filename === undefined ? {} : { filename: options.filename });
  const scan = scanDot(createParseContext(source, options.filename));
  const comments: Comment[] = [];
  for (let index = 0; index < scan.comments.length; index += 2) {
    const start = scan.comments[index]!;
    const end = scan.comments[index + 1]!;
    comments.push({ start, end, text: source.slice(start, end).trimEnd() });
  }
  return new Printer(source, options).file(ast, comments, scan.bodyStart, scan.bodyEnd);
}

class Printer {
  readonly #source: string;
  readonly #rank: (key: string, scope: DotAttributeScope) => number;
  readonly #bare: ((key: string, scope: DotAttributeScope) => boolean) | undefined;
  readonly #lineWidth: number;
  readonly #lines: string[] = [];

  constructor(source: string, options: FormatDotOptions) {
    this.#source = source;
    this.#rank = options.attributeRank ?? (() => 0);
    this.#bare = options.bareValue;
    this.#lineWidth = options.lineWidth ?? 100;
  }

  file(ast: DotAst, comments: readonly Comment[], bodyStart: number, bodyEnd: number): string {
    const header = comments.filter((comment) => comment.end <= bodyStart);
    const body = comments.filter((comment) => comment.start >= bodyStart && comment.end <= bodyEnd);
    const after = comments.filter((comment) => comment.start > bodyEnd);
    this.#comments(header, '');
    const id = this.#text(ast.id.span);
    this.#lines.push(`digraph ${id} {`);
    this.#body(ast.statements, body, INDENT);
    this.#lines.push('}');
    this.#comments(after, '');
    return `${this.#lines.join('\n')}\n`;
  }

  /** The statements of a graph or subgraph body, with the comments between them, at `indent`. */
  #body(statements: readonly DotStatement[], comments: readonly Comment[], indent: string): void {
    const items = statements.map((statement) => offsets(statement.span));
    const placement = distribute(this.#source, comments, items);
    let previousEnd = -1;
    statements.forEach((statement, index) => {
      const leading = placement.leading[index]!;
      const first = leading[0]?.start ?? items[index]!.start;
      const separated = previousEnd !== -1 && newlinesBetween(this.#source, previousEnd, first) >= 2;
      if (separated) this.#lines.push('');
      this.#comments(leading, indent);
      const lastLeading = leading.at(-1);
      if (
        lastLeading !== undefined &&
        newlinesBetween(this.#source, lastLeading.end, items[index]!.start) >= 2
      ) {
        this.#lines.push('');
      }
      this.#statement(statement, placement.inner[index]!, placement.trailing[index]!, indent);
      previousEnd = Math.max(items[index]!.end, placement.trailing[index]!.at(-1)?.end ?? 0);
    });
    if (placement.dangling.length > 0) {
      const first = placement.dangling[0]!.start;
      if (previousEnd !== -1 && newlinesBetween(this.#source, previousEnd, first) >= 2) this.#lines.push('');
      this.#comments(placement.dangling, indent);
    }
  }

  /** Comment lines at `indent`, keeping one blank line where the source had one between two of them. */
  #comments(comments: readonly Comment[], indent: string): void {
    comments.forEach((comment, index) => {
      const previous = comments[index - 1];
      if (previous !== undefined && newlinesBetween(this.#source, previous.end, comment.start) >= 2) {
        this.#lines.push('');
      }
      this.#lines.push(`${indent}${comment.text}`);
    });
  }

  #statement(
    statement: DotStatement,
    inner: readonly Comment[],
    trailing: readonly Comment[],
    indent: string,
  ): void {
    if (statement.kind === 'subgraph') {
      this.#subgraph(statement, inner, trailing, indent);
      return;
    }
    if (statement.kind === 'attributeDeclaration') {
      // `key = value`: comments inside it go before it.
      this.#comments(inner, indent);
      this.#line(indent, this.#attribute(statement.attribute, 'graph', indent), trailing);
      return;
    }
    const { attributes } = statement;
    let head: string;
    let headEnd: number;
    let scope: DotAttributeScope;
    if (statement.kind === 'node') {
      head = this.#text(statement.id.span);
      headEnd = statement.id.span.end.offset;
      scope = 'node';
    } else if (statement.kind === 'edgeChain') {
      head = statement.nodes.map((node) => this.#text(node.span)).join(' -> ');
      headEnd = statement.nodes.at(-1)!.span.end.offset;
      scope = 'edge';
    } else {
      [head, scope] = DEFAULTS_KEYWORDS[statement.kind];
      headEnd = statement.span.start.offset + head.length;
    }
    const keyword = statement.kind !== 'node' && statement.kind !== 'edgeChain';
    // Comments in the head (`a /* c */ -> b`) go before the statement.
    this.#comments(
      inner.filter((comment) => comment.start < headEnd || attributes.length === 0),
      indent,
    );
    if (attributes.length === 0) {
      this.#line(indent, keyword ? `${head} []` : head, trailing);
      return;
    }
    const ordered = attributes
      .map((attribute, index) => ({ attribute, index }))
      .sort(
        (left, right) =>
          this.#rank(left.attribute.key, scope) - this.#rank(right.attribute.key, scope) ||
          left.index - right.index,
      );
    // Comments inside the statement: before the first attribute (in its head or after "[") lead that attribute.
    const items = attributes.map((attribute) => offsets(attribute.span));
    const placement = distribute(
      this.#source,
      inner.filter((comment) => comment.start >= headEnd),
      items,
    );
    const written = ordered.map(({ attribute, index }) => ({
      text: this.#attribute(attribute, scope, `${indent}${INDENT}`),
      leading: [...placement.leading[index]!, ...placement.inner[index]!].sort(byStart),
      trailing: placement.trailing[index]!,
    }));
    const hasComments =
      placement.dangling.length > 0 ||
      written.some((entry) => entry.leading.length > 0 || entry.trailing.length > 0);
    const inline = `${head} [${written.map((entry) => entry.text).join(', ')}]`;
    if (!hasComments && !inline.includes('\n') && indent.length + inline.length <= this.#lineWidth) {
      this.#line(indent, inline, trailing);
      return;
    }
    this.#lines.push(`${indent}${head} [`);
    const inside = `${indent}${INDENT}`;
    written.forEach((entry, position) => {
      this.#comments(entry.leading, inside);
      const comma = position < written.length - 1 ? ',' : '';
      this.#line(inside, `${entry.text}${comma}`, entry.trailing);
    });
    this.#comments(placement.dangling, inside);
    this.#line(indent, ']', trailing);
  }

  #subgraph(
    statement: DotSubgraphStatement,
    inner: readonly Comment[],
    trailing: readonly Comment[],
    indent: string,
  ): void {
    const head = statement.id === undefined ? '{' : `subgraph ${this.#text(statement.id.span)} {`;
    if (statement.statements.length === 0 && inner.length === 0) {
      this.#line(indent, `${head}}`, trailing);
      return;
    }
    this.#lines.push(`${indent}${head}`);
    this.#body(statement.statements, inner, `${indent}${INDENT}`);
    this.#line(indent, '}', trailing);
  }

  /** One line (possibly holding line breaks of a string) with its trailing comments. */
  #line(indent: string, text: string, trailing: readonly Comment[]): void {
    const comments = trailing.map((comment) => comment.text).join(' ');
    this.#lines.push(`${indent}${text}${comments === '' ? '' : ` ${comments}`}`);
  }

  #attribute(attribute: DotAttribute, scope: DotAttributeScope, indent: string): string {
    const key = attribute.key;
    const bareKey = IDENTIFIER.test(key) && !KEYWORDS.has(key.toLowerCase());
    return `${bareKey ? key : quote(key)}=${this.#value(attribute.value, key, scope, indent)}`;
  }

  #value(value: DotValue, key: string, scope: DotAttributeScope, indent: string): string {
    const parts = value.kind === 'string' ? stringParts(value.raw) : [value.raw];
    const bare = this.#bare?.(key, scope);
    if (bare === undefined) return this.#joined(value, parts, indent);
    const plain = value.kind !== 'string' || (parts.length === 1 && !parts[0]!.includes('\\'));
    if (bare && plain && canBeBare(value.value)) return value.value;
    return value.kind === 'string' ? this.#joined(value, parts, indent) : `"${value.raw}"`;
  }

  /** A value as written, its concatenated parts one per line when they were written on several. */
  #joined(value: DotValue, parts: readonly string[], indent: string): string {
    if (parts.length === 1) return parts[0]!;
    const separator = partsOnSeparateLines(value.raw) ? ` +\n${indent}${INDENT}` : ' + ';
    return parts.join(separator);
  }

  #text(span: SourceSpan): string {
    return this.#source.slice(span.start.offset, span.end.offset);
  }
}

/** Whether `value` reads the same unquoted, in this grammar and in Graphviz's: an identifier (not a keyword) or a number. */
function canBeBare(value: string): boolean {
  return GRAPHVIZ_BARE_VALUE.test(value) && !KEYWORDS.has(value.toLowerCase());
}

function byStart(left: Comment, right: Comment): number {
  return left.start - right.start;
}

/** The offsets of a span of this source. */
function offsets(span: SourceSpan): Item {
  return { start: span.start.offset, end: span.end.offset };
}

/** A key or id in double quotes, with `"` and `\` escaped. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The quoted strings of a value written as `"a" + "b"` (comments and blanks between them left out). */
function stringParts(raw: string): string[] {
  const parts: string[] = [];
  let index = 0;
  while (index < raw.length) {
    const code = raw.charCodeAt(index);
    if (code === 34) {
      let end = index + 1;
      while (end < raw.length && raw.charCodeAt(end) !== 34) end += raw.charCodeAt(end) === 92 ? 2 : 1;
      parts.push(raw.slice(index, end + 1));
      index = end + 1;
    } else if (raw.startsWith('/*', index)) {
      const close = raw.indexOf('*/', index + 2);
      index = close === -1 ? raw.length : close + 2;
    } else if (raw.startsWith('//', index)) {
      const newline = raw.indexOf('\n', index);
      index = newline === -1 ? raw.length : newline;
    } else {
      index++;
    }
  }
  return parts;
}

/** Whether a line break separates two parts of a concatenation (outside the strings). */
function partsOnSeparateLines(raw: string): boolean {
  let inString = false;
  for (let index = 0; index < raw.length; index++) {
    const code = raw.charCodeAt(index);
    if (inString) {
      if (code === 92) index++;
      else if (code === 34) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 10) {
      return true;
    }
  }
  return false;
}

/** The number of line breaks in `source[from, to)`. */
function newlinesBetween(source: string, from: number, to: number): number {
  let count = 0;
  for (
    let index = source.indexOf('\n', from);
    index !== -1 && index < to;
    index = source.indexOf('\n', index + 1)
  ) {
    count++;
  }
  return count;
}

/**
 * Assigns each comment to an item: inside an item (its `inner`); on the same line after one (its `trailing`; a `#`
 * line never is); else before the next item (its `leading`); else after the last (`dangling`). Items and comments are
 * in source order.
 */
function distribute(source: string, comments: readonly Comment[], items: readonly Item[]): Placement {
  const placement: Placement = {
    leading: items.map(() => []),
    trailing: items.map(() => []),
    inner: items.map(() => []),
    dangling: [],
  };
  let next = 0;
  for (const comment of comments) {
    while (next < items.length && items[next]!.end <= comment.start) next++;
    const current = items[next];
    if (current !== undefined && current.start <= comment.start && comment.end <= current.end) {
      placement.inner[next]!.push(comment);
      continue;
    }
    const previous = items[next - 1];
    if (
      previous !== undefined &&
      source.charCodeAt(comment.start) !== 35 &&
      newlinesBetween(source, previous.end, comment.start) === 0
    ) {
      placement.trailing[next - 1]!.push(comment);
    } else if (current !== undefined) {
      placement.leading[next]!.push(comment);
    } else {
      placement.dangling.push(comment);
    }
  }
  return placement;
}
