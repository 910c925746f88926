/**
 * What the editor features need to know about a pipeline's text: where each node id, attribute, attribute list,
 * class, file reference and `$goal` is. Made by one tolerant pass over the text, so it is there while the user types a
 * file that does not parse yet (the parser of `@attractor/dot` stops at the first error: diagnostics come from it, in
 * the analysis worker). It follows the syntax of the Attractor DOT subset (spec §2.2): `//`, `/* *\/` and `#` comments,
 * quoted strings with escapes and `+` concatenation, bare values, dotted keys, edge chains, subgraphs and
 * `node`/`edge`/`graph [...]` statements.
 */
import { decodeDotString } from '@attractor/dot';
import {
  DIALECT_ALIASES,
  deriveClassName,
  promptFileRef,
  SHAPE_TO_HANDLER_TYPE,
  splitClassList,
} from '@attractor/graph';
import { parseStylesheet } from '@attractor/stylesheet';

/** A range of the text: `[start, end)` offsets in UTF-16 code units. */
export interface TextRange {
  readonly start: number;
  readonly end: number;
}

/** Where an attribute is written. */
export type AttributeOwner =
  | { readonly kind: 'graph'; readonly subgraph?: string }
  | { readonly kind: 'node'; readonly id: string }
  | { readonly kind: 'edge'; readonly nodes: readonly string[] }
  | { readonly kind: 'nodeDefaults' }
  | { readonly kind: 'edgeDefaults' };

/** An attribute value as written. */
export interface IndexedValue extends TextRange {
  /** Decoded: quotes removed, escapes applied, concatenations joined. */
  readonly text: string;
  /** Whether it was written in quotes. */
  readonly quoted: boolean;
}

/** One `key = value` of the text. */
export interface IndexedAttribute {
  /** The key as written (decoded when quoted). */
  readonly key: string;
  /** The canonical key: a dialect alias (`llm_prompt`) resolved (`prompt`). */
  readonly canonicalKey: string;
  readonly keyRange: TextRange;
  /** Absent while only the key is written. */
  readonly value?: IndexedValue;
  readonly owner: AttributeOwner;
}

/** A `[...]` list: where completion offers keys. */
export interface AttributeList extends TextRange {
  readonly owner: AttributeOwner;
  /** False when the text ends (or the next statement starts) before its `]`. */
  readonly closed: boolean;
}

/** Where a node id is written. */
export interface NodeOccurrence extends TextRange {
  readonly id: string;
  /** A node statement, an edge, or an attribute value that names the node (`retry_target`, a `#id` selector). */
  readonly kind: 'statement' | 'edge' | 'reference';
}

/** A node as the text declares it. */
export interface IndexedNode {
  readonly id: string;
  /** Its first node statement's id, else its first occurrence. */
  readonly definition: NodeOccurrence;
  /** The whole statements that declare it (for document symbols). */
  readonly statements: TextRange[];
  /** Its attributes with the `node [...]` defaults in scope where it first appears, by canonical key. */
  readonly attributes: Map<string, string>;
}

/** An edge `from -> to` (a chain gives one per pair). */
export interface IndexedEdge extends TextRange {
  readonly from: string;
  readonly to: string;
  readonly label?: string;
  readonly condition?: string;
}

/** A subgraph, with what it holds, for document symbols and derived classes. */
export interface IndexedSubgraph extends TextRange {
  readonly id?: TextRange & { readonly name: string };
  label?: string;
  readonly nodes: string[];
  readonly subgraphs: IndexedSubgraph[];
}

/** A stylesheet class: where it is given to nodes or selected. */
export interface ClassOccurrence extends TextRange {
  readonly name: string;
  /** `class="..."` of a node, a `.name` selector of the stylesheet, or a subgraph label that derives it (spec §2.10). */
  readonly kind: 'class' | 'selector' | 'subgraph';
}

/** A file named by an attribute: a sub-pipeline, a supervised child pipeline or a prompt file. */
export interface FileReference extends TextRange {
  /** As written (without the `@` of a prompt file). */
  readonly path: string;
  readonly key: string;
}

/** `$goal` or `$context.<key>` inside a value. */
export interface VariableReference extends TextRange {
  /** `goal` or `context.<key>`. */
  readonly name: string;
}

/** Everything {@link indexPipeline} finds. */
export interface PipelineIndex {
  readonly graphId?: TextRange & { readonly name: string };
  readonly nodes: Map<string, IndexedNode>;
  /** Sorted by position. */
  readonly occurrences: NodeOccurrence[];
  /** Sorted by position. */
  readonly attributes: IndexedAttribute[];
  /** Sorted by position. */
  readonly lists: AttributeList[];
  readonly edges: IndexedEdge[];
  /** The top-level subgraphs. */
  readonly subgraphs: IndexedSubgraph[];
  readonly classes: ClassOccurrence[];
  readonly files: FileReference[];
  readonly variables: VariableReference[];
  /** Comments and `#` lines. */
  readonly comments: TextRange[];
  /** Graph attributes by canonical key (the graph's own, not a subgraph's). */
  readonly graphAttributes: Map<string, string>;
}

/** Keys whose value names a node. */
const NODE_REFERENCE_KEYS = new Set(['retry_target', 'fallback_retry_target', 'human.default_choice']);
/** Keys whose value names another DOT file. */
const FILE_KEYS = new Set(['graph_ref', 'stack.child_dotfile']);
const VARIABLE = /\$goal|\$context\.([A-Za-z0-9_.]*[A-Za-z0-9_])?/g;
const STATEMENT_LINE = /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*(?:\[|->)/;

/**
 * Indexes a pipeline's text in one pass. Never throws: text it cannot read is skipped, and an unclosed list, string
 * or brace ends at the end of the text (a list also where the next line starts a statement: `name [` or `name ->`).
 */
export function indexPipeline(text: string): PipelineIndex {
  return new Indexer(text).run();
}

type Defaults = Map<string, string>;

class Indexer {
  readonly #text: string;
  #position = 0;
  readonly #index: {
    graphId?: TextRange & { name: string };
    nodes: Map<string, IndexedNode>;
    occurrences: NodeOccurrence[];
    attributes: IndexedAttribute[];
    lists: AttributeList[];
    edges: IndexedEdge[];
    subgraphs: IndexedSubgraph[];
    classes: ClassOccurrence[];
    files: FileReference[];
    variables: VariableReference[];
    comments: TextRange[];
    graphAttributes: Map<string, string>;
  } = {
    nodes: new Map(),
    occurrences: [],
    attributes: [],
    lists: [],
    edges: [],
    subgraphs: [],
    classes: [],
    files: [],
    variables: [],
    comments: [],
    graphAttributes: new Map(),
  };

  constructor(text: string) {
    this.#text = text;
  }

  run(): PipelineIndex {
    this.#header();
    this.#body({ nodeDefaults: new Map(), subgraph: undefined });
    const index = this.#index;
    index.occurrences.sort(byStart);
    index.classes.sort(byStart);
    return index;
  }

  // ---- structure ----

  #header(): void {
    // `digraph Name {`: anything before the first `{` outside comments and strings.
    while (this.#position < this.#text.length) {
      this.#skipTrivia();
      const code = this.#text.charCodeAt(this.#position);
      if (code === OPEN_BRACE) {
        this.#position++;
        return;
      }
      const word = this.#word();
      if (word === undefined) {
        this.#position++;
      } else if (!/^(strict|digraph|graph)$/i.test(word.name)) {
        this.#index.graphId = word;
      }
    }
  }

  #body(scope: { nodeDefaults: Defaults; subgraph: IndexedSubgraph | undefined }): void {
    const text = this.#text;
    while (this.#position < text.length) {
      this.#skipTrivia();
      if (this.#position >= text.length) return;
      const code = text.charCodeAt(this.#position);
      if (code === CLOSE_BRACE) {
        this.#position++;
        return;
      }
      if (code === SEMICOLON || code === COMMA || code === CLOSE_BRACKET) {
        this.#position++;
        continue;
      }
      if (code === OPEN_BRACKET) {
        this.#list({ kind: 'graph' });
        continue;
      }
      const start = this.#position;
      if (code === OPEN_BRACE) {
        this.#position++;
        this.#subgraph(start, undefined, scope);
        continue;
      }
      const word = this.#word();
      if (word === undefined) {
        this.#position++;
        continue;
      }
      this.#skipTrivia();
      const lower = word.name.toLowerCase();
      if (lower === 'subgraph') {
        const id = this.#word();
        this.#skipTrivia();
        if (text.charCodeAt(this.#position) === OPEN_BRACE) {
          this.#position++;
          this.#subgraph(start, id, scope);
        }
        continue;
      }
      const next = text.charCodeAt(this.#position);
      if (next === EQUALS) {
        this.#position++;
        const owner: AttributeOwner =
          scope.subgraph === undefined ? { kind: 'graph' } : graphOwner(scope.subgraph);
        const attribute = this.#attribute(word, owner);
        this.#graphAttribute(attribute, scope.subgraph);
        continue;
      }
      if ((lower === 'node' || lower === 'edge' || lower === 'graph') && next === OPEN_BRACKET) {
        const owner: AttributeOwner =
          lower === 'node'
            ? { kind: 'nodeDefaults' }
            : lower === 'edge'
              ? { kind: 'edgeDefaults' }
              : scope.subgraph === undefined
                ? { kind: 'graph' }
                : graphOwner(scope.subgraph);
        const attributes = this.#lists(owner);
        if (lower === 'node') for (const attribute of attributes) setValue(scope.nodeDefaults, attribute);
        if (lower === 'graph')
          for (const attribute of attributes) this.#graphAttribute(attribute, scope.subgraph);
        continue;
      }
      this.#nodeOrEdge(word, scope);
    }
  }

  #subgraph(
    start: number,
    id: (TextRange & { name: string }) | undefined,
    scope: { nodeDefaults: Defaults; subgraph: IndexedSubgraph | undefined },
  ): void {
    const subgraph: IndexedSubgraph = {
      start,
      end: start,
      ...(id === undefined ? {} : { id }),
      nodes: [],
      subgraphs: [],
    };
    (scope.subgraph?.subgraphs ?? this.#index.subgraphs).push(subgraph);
    this.#body({ nodeDefaults: new Map(scope.nodeDefaults), subgraph });
    (subgraph as { end: number }).end = this.#position;
  }

  #nodeOrEdge(
    first: TextRange & { name: string },
    scope: { nodeDefaults: Defaults; subgraph: IndexedSubgraph | undefined },
  ): void {
    const text = this.#text;
    const ids = [first];
    while (
      text.startsWith('->', this.#position) ||
      (text.startsWith('--', this.#position) && text.charCodeAt(this.#position + 2) !== MINUS)
    ) {
      this.#position += 2;
      this.#skipTrivia();
      const id = this.#word();
      if (id === undefined) break;
      ids.push(id);
      this.#skipTrivia();
    }
    const isEdge = ids.length > 1;
    const owner: AttributeOwner = isEdge
      ? { kind: 'edge', nodes: ids.map((id) => id.name) }
      : { kind: 'node', id: first.name };
    const statementStart = first.start;
    const attributes = text.charCodeAt(this.#position) === OPEN_BRACKET ? this.#lists(owner) : [];
    const statement = { start: statementStart, end: this.#position };
    for (const id of ids) {
      const kind = isEdge ? 'edge' : 'statement';
      this.#index.occurrences.push({ start: id.start, end: id.end, id: id.name, kind });
      const node = this.#node(id, kind, scope);
      if (!isEdge) {
        node.statements.push(statement);
        for (const attribute of attributes) setValue(node.attributes, attribute);
      }
    }
    if (!isEdge) return;
    const label = attributes.findLast((attribute) => attribute.canonicalKey === 'label')?.value?.text;
    const condition = attributes.findLast((attribute) => attribute.canonicalKey === 'condition')?.value?.text;
    for (let index = 0; index + 1 < ids.length; index++) {
      const edge: { -readonly [Key in keyof IndexedEdge]: IndexedEdge[Key] } = {
        from: ids[index]!.name,
        to: ids[index + 1]!.name,
        start: ids[index]!.start,
        end: ids[index + 1]!.end,
      };
      if (label !== undefined) edge.label = label;
      if (condition !== undefined) edge.condition = condition;
      this.#index.edges.push(edge);
    }
  }

  /** The node `id` names, made with the defaults in scope when it first appears. */
  #node(
    id: TextRange & { name: string },
    kind: 'statement' | 'edge',
    scope: { nodeDefaults: Defaults; subgraph: IndexedSubgraph | undefined },
  ): IndexedNode {
    let node = this.#index.nodes.get(id.name);
    if (node === undefined) {
      node = {
        id: id.name,
        definition: { start: id.start, end: id.end, id: id.name, kind },
        statements: [],
        attributes: scope.nodeDefaults.size === 0 ? new Map() : new Map(scope.nodeDefaults),
      };
      this.#index.nodes.set(id.name, node);
      scope.subgraph?.nodes.push(id.name);
    } else if (kind === 'statement' && node.definition.kind !== 'statement') {
      (node as { definition: NodeOccurrence }).definition = {
        start: id.start,
        end: id.end,
        id: id.name,
        kind,
      };
    }
    return node;
  }

  #graphAttribute(attribute: IndexedAttribute, subgraph: IndexedSubgraph | undefined): void {
    if (subgraph === undefined) {
      setValue(this.#index.graphAttributes, attribute);
    } else if (attribute.canonicalKey === 'label' && attribute.value !== undefined) {
      subgraph.label = attribute.value.text;
      const name = deriveClassName(attribute.value.text);
      if (name !== '') {
        this.#index.classes.push({
          name,
          kind: 'subgraph',
          start: attribute.value.start,
          end: attribute.value.end,
        });
      }
    }
  }

  /** One or more `[...]` lists in a row. */
  #lists(owner: AttributeOwner): IndexedAttribute[] {
    const attributes: IndexedAttribute[] = [];
    while (this.#text.charCodeAt(this.#position) === OPEN_BRACKET) {
      attributes.push(...this.#list(owner));
      this.#skipTrivia();
    }
    return attributes;
  }

  #list(owner: AttributeOwner): IndexedAttribute[] {
    const text = this.#text;
    const start = this.#position;
    this.#position++;
    const attributes: IndexedAttribute[] = [];
    let closed = false;
    // The end of the last key or value read: a line after it that starts a statement ends a list left open.
    let tokenEnd = this.#position;
    for (;;) {
      this.#skipTrivia();
      if (this.#position >= text.length) break;
      if (hasNewline(text, tokenEnd, this.#position) && STATEMENT_LINE.test(lineAt(text, this.#position))) {
        this.#position = lineStart(text, this.#position);
        break;
      }
      const code = text.charCodeAt(this.#position);
      if (code === CLOSE_BRACKET) {
        this.#position++;
        closed = true;
        break;
      }
      if (code === OPEN_BRACE || code === CLOSE_BRACE) break;
      if (code === COMMA || code === SEMICOLON) {
        this.#position++;
        continue;
      }
      const key = this.#word();
      if (key === undefined) {
        this.#position++;
        continue;
      }
      tokenEnd = this.#position;
      this.#skipTrivia();
      if (text.charCodeAt(this.#position) === EQUALS) {
        this.#position++;
        const attribute = this.#attribute(key, owner);
        attributes.push(attribute);
        tokenEnd = attribute.value?.end ?? this.#position;
      } else {
        attributes.push(this.#record(key, owner, undefined));
      }
    }
    this.#index.lists.push({ start, end: this.#position, owner, closed });
    return attributes;
  }

  /** `key =` has been read: the value, and the attribute's record. */
  #attribute(key: TextRange & { name: string }, owner: AttributeOwner): IndexedAttribute {
    this.#skipTrivia();
    return this.#record(key, owner, this.#value());
  }

  #record(
    key: TextRange & { name: string },
    owner: AttributeOwner,
    value: IndexedValue | undefined,
  ): IndexedAttribute {
    const canonicalKey = DIALECT_ALIASES[key.name] ?? key.name;
    const keyRange = { start: key.start, end: key.end };
    const attribute: IndexedAttribute =
      value === undefined
        ? { key: key.name, canonicalKey, keyRange, owner }
        : { key: key.name, canonicalKey, keyRange, value, owner };
    this.#index.attributes.push(attribute);
    if (value !== undefined) this.#valueReferences(attribute, value);
    return attribute;
  }

  /** What a value names: nodes, classes, files and variables. */
  #valueReferences(attribute: IndexedAttribute, value: IndexedValue): void {
    const key = attribute.canonicalKey;
    const index = this.#index;
    if (NODE_REFERENCE_KEYS.has(key) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value.text)) {
      const offset = value.quoted ? 1 : 0;
      index.occurrences.push({
        id: value.text,
        kind: 'reference',
        start: value.start + offset,
        end: value.start + offset + value.text.length,
      });
    }
    if (FILE_KEYS.has(key) && value.text.trim() !== '') {
      index.files.push({ path: value.text.trim(), key, start: value.start, end: value.end });
    }
    if (key === 'prompt') {
      const path = promptFileRef(value.text);
      if (path !== undefined) index.files.push({ path, key, start: value.start, end: value.end });
    }
    if (!value.quoted) return;
    // Where each decoded character was written: worked out only for a value with something to find in it.
    let offsets: number[] | undefined;
    // A single string without escapes: each character is where the decoded one is, after the opening quote.
    const plain =
      value.end - value.start === value.text.length + 2 && this.#text.charCodeAt(value.end - 1) === QUOTE;
    const at = (decoded: number, length: number): TextRange => {
      if (plain) return { start: value.start + 1 + decoded, end: value.start + 1 + decoded + length };
      offsets ??= decodedOffsets(this.#text, value);
      return { start: offsets[decoded] ?? value.start, end: offsets[decoded + length] ?? value.end };
    };
    if (key === 'class') {
      let from = 0;
      for (const name of splitClassList(value.text)) {
        const position = value.text.indexOf(name, from);
        from = position + name.length;
        index.classes.push({ name, kind: 'class', ...at(position, name.length) });
      }
    }
    if (key === 'model_stylesheet') this.#stylesheet(value, at);
    if (!value.text.includes('$')) return;
    for (const match of value.text.matchAll(VARIABLE)) {
      const name = match[0] === '$goal' ? 'goal' : `context.${match[1] ?? ''}`;
      index.variables.push({ name, ...at(match.index, match[0].length) });
    }
  }

  #stylesheet(value: IndexedValue, at: (decoded: number, length: number) => TextRange): void {
    let rules: ReturnType<typeof parseStylesheet>['rules'];
    try {
      rules = parseStylesheet(value.text).rules;
    } catch {
      return;
    }
    for (const { selector } of rules) {
      if (selector.kind !== 'class' && selector.kind !== 'id') continue;
      // The span covers the `.` or `#`.
      const where = at(selector.span.offset + 1, selector.span.length - 1);
      if (selector.kind === 'class') {
        this.#index.classes.push({ name: selector.value, kind: 'selector', ...where });
      } else if (!selector.value.includes('*')) {
        this.#index.occurrences.push({ id: selector.value, kind: 'reference', ...where });
      }
    }
  }

  // ---- tokens ----

  /** Skips blanks, comments and `#` lines (a `#` first on a line). */
  #skipTrivia(): void {
    const text = this.#text;
    while (this.#position < text.length) {
      const code = text.charCodeAt(this.#position);
      if (code <= SPACE || code === BYTE_ORDER_MARK) {
        this.#position++;
      } else if (code === SLASH && text.charCodeAt(this.#position + 1) === SLASH) {
        this.#comment(lineEnd(text, this.#position));
      } else if (code === SLASH && text.charCodeAt(this.#position + 1) === STAR) {
        const close = text.indexOf('*/', this.#position + 2);
        this.#comment(close === -1 ? text.length : close + 2);
      } else if (
        code === HASH &&
        /^[ \t]*$/.test(text.slice(lineStart(text, this.#position), this.#position))
      ) {
        this.#comment(lineEnd(text, this.#position));
      } else {
        return;
      }
    }
  }

  #comment(end: number): void {
    this.#index.comments.push({ start: this.#position, end });
    this.#position = end;
  }

  /** An identifier (dotted keys too), a number or a quoted string; `undefined` (nothing read) otherwise. */
  #word(): (TextRange & { name: string }) | undefined {
    const text = this.#text;
    const start = this.#position;
    const code = text.charCodeAt(start);
    if (code === QUOTE) {
      const end = stringEnd(text, start);
      this.#position = end;
      return { name: decodeString(text.slice(start, end)), start, end };
    }
    if (!isWordChar(code) && !(code === MINUS && isDigit(text.charCodeAt(start + 1)))) return undefined;
    let end = start + 1;
    while (end < text.length && (isWordChar(text.charCodeAt(end)) || text.charCodeAt(end) === DOT)) end++;
    this.#position = end;
    return { name: text.slice(start, end), start, end };
  }

  /** A value after `=`: a string (with `+` concatenations) or a bare run of characters. */
  #value(): IndexedValue | undefined {
    const text = this.#text;
    const start = this.#position;
    if (text.charCodeAt(start) === QUOTE) {
      let end = stringEnd(text, start);
      let decoded = decodeString(text.slice(start, end));
      for (;;) {
        this.#position = end;
        this.#skipTrivia();
        if (text.charCodeAt(this.#position) !== PLUS) break;
        this.#position++;
        this.#skipTrivia();
        if (text.charCodeAt(this.#position) !== QUOTE) break;
        const partStart = this.#position;
        end = stringEnd(text, partStart);
        decoded += decodeString(text.slice(partStart, end));
      }
      this.#position = end;
      return { text: decoded, quoted: true, start, end };
    }
    let end = start;
    while (end < text.length && isBareChar(text.charCodeAt(end))) end++;
    if (end === start) return undefined;
    this.#position = end;
    return { text: text.slice(start, end), quoted: false, start, end };
  }
}

function graphOwner(subgraph: IndexedSubgraph): AttributeOwner {
  return subgraph.id === undefined ? { kind: 'graph' } : { kind: 'graph', subgraph: subgraph.id.name };
}

function setValue(values: Map<string, string>, attribute: IndexedAttribute): void {
  if (attribute.value !== undefined) values.set(attribute.canonicalKey, attribute.value.text);
}

function byStart(left: TextRange, right: TextRange): number {
  return left.start - right.start;
}

/** After the closing quote of the string that starts at `start`, or the end of the text. */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === BACKSLASH) index += 2;
    else if (code === QUOTE) return index + 1;
    else index++;
  }
  return text.length;
}

/** The text of a quoted string whose closing quote may be missing yet (while the user types it). */
function decodeString(quoted: string): string {
  return decodeDotString(quoted.length > 1 && quoted.endsWith('"') ? quoted : `${quoted}"`);
}

/**
 * For each character of a quoted value's decoded text (and one past its end), the offset in the text where it was
 * written: quotes, escapes and `+` between the parts undone.
 */
export function decodedOffsets(text: string, value: TextRange): number[] {
  const offsets: number[] = [];
  let index = value.start;
  let inString = false;
  while (index < value.end) {
    const code = text.charCodeAt(index);
    if (!inString) {
      if (code === QUOTE) inString = true;
      index++;
      continue;
    }
    if (code === QUOTE) {
      inString = false;
      index++;
      continue;
    }
    if (code === BACKSLASH) {
      const next = text.charCodeAt(index + 1);
      if (next === NEWLINE) {
        index += 2;
        continue;
      }
      if (next === CARRIAGE_RETURN && text.charCodeAt(index + 2) === NEWLINE) {
        index += 3;
        continue;
      }
      offsets.push(index);
      // Kept escapes (`\d`) are two characters of the decoded text.
      if (next === QUOTE || next === BACKSLASH || next === 110 || next === 116) index += 2;
      else {
        offsets.push(index + 1);
        index += 2;
      }
      continue;
    }
    offsets.push(index);
    index++;
  }
  const closing = text.lastIndexOf('"', value.end - 1);
  offsets.push(closing >= value.start && closing > (offsets.at(-1) ?? -1) ? closing : value.end);
  return offsets;
}

/** The handler type a node's attributes select (spec §2.8): `type`, else its shape's, else `codergen`. */
export function handlerTypeOf(attributes: ReadonlyMap<string, string>): string {
  const type = attributes.get('type')?.trim();
  if (type !== undefined && type !== '') return type;
  const shape = attributes.get('shape')?.trim() ?? 'box';
  return (SHAPE_TO_HANDLER_TYPE as Record<string, string>)[shape] ?? 'codergen';
}

function hasNewline(text: string, from: number, to: number): boolean {
  for (let index = from; index < to; index++) if (text.charCodeAt(index) === NEWLINE) return true;
  return false;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline;
}

function lineAt(text: string, offset: number): string {
  return text.slice(lineStart(text, offset), lineEnd(text, offset));
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isWordChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95
  );
}

/** Characters of a bare value: `A-Z a-z 0-9 _ . : -` (and `+`, `/`, `@`, `*` so that a half-typed path reads whole). */
function isBareChar(code: number): boolean {
  return (
    isWordChar(code) ||
    code === DOT ||
    code === 58 ||
    code === MINUS ||
    code === PLUS ||
    code === SLASH ||
    code === 64 ||
    code === STAR
  );
}

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const SPACE = 32;
const QUOTE = 34;
const HASH = 35;
const STAR = 42;
const PLUS = 43;
const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const SLASH = 47;
const SEMICOLON = 59;
const EQUALS = 61;
const OPEN_BRACKET = 91;
const BACKSLASH = 92;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const BYTE_ORDER_MARK = 0xfeff;
