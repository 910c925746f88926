/**
 * Builds the typed `Graph` from a DOT AST (spec §2.9-§2.12): expands edge chains, applies scoped
 * `node`/`edge` default blocks, merges repeated node statements, derives subgraph classes, maps
 * dialect aliases to canonical keys, and types every attribute through `attribute-schema.ts`.
 */
import type {
  DotAst,
  DotAttribute,
  DotEdgeChainStatement,
  DotId,
  DotNodeStatement,
  DotStatement,
  DotStatementStream,
  SourceSpan,
} from '@attractor/dot';
import { spanBetween } from '@attractor/dot';
import {
  createEdge,
  createNode,
  DIALECT_ALIASES,
  graphSettings,
  splitClassList,
} from './attribute-schema.js';
import { dialectValue } from './dialect-values.js';
import { type AttributeOrigin, Graph, type GraphAttribute, type GraphEdge, type GraphNode } from './graph.js';

/** Options of `buildGraph`. */
export interface BuildGraphOptions {
  /** File name recorded on the graph and on every span that lacks one. Default: the AST's `filename`. */
  readonly filename?: string;
  /** The DOT source, kept on the graph so diagnostics can show excerpts. */
  readonly source?: string;
}

type MutableAttributes = Record<string, GraphAttribute>;

/**
 * Stores `attribute` under `key` as an own property, also for keys that name something of `Object.prototype`
 * (`__proto__` would otherwise replace the record's prototype).
 */
/**
 * Amplifier's sub-pipeline node, `shape=folder` with `dot_file=` (read as `graph_ref`) and no `type`: it gets
 * `type="subgraph"` (origin `transform`, `writtenValue` `shape=folder`, for lint `dialect_alias`), or it would
 * run as an LLM stage.
 */
function folderAsSubgraph(attributes: MutableAttributes): void {
  const shape = attributes.shape;
  if (shape?.value !== 'folder' || attributes.graph_ref === undefined || attributes.type !== undefined)
    return;
  setAttribute(attributes, 'type', {
    key: 'type',
    value: 'subgraph',
    kind: 'derived',
    origin: 'transform',
    writtenValue: 'shape=folder',
    // No key span: the lint's attribute walk knows a written attribute by its key's place, which is the shape's.
    ...(shape.valueSpan === undefined ? {} : { valueSpan: shape.valueSpan }),
  });
}

/**
 * A `shape=parallelogram` node with a `prompt`, no `tool_command` and no `type`: pascals-discrete-attractor writes an
 * agent stage with restricted tools (`allowed_tools`) this way. It gets `type="codergen"` (origin `transform`,
 * `writtenValue` `shape=parallelogram`, for lint `dialect_alias`): it runs its prompt as an LLM stage instead of
 * failing as a tool node without a command.
 */
function promptedToolShapeAsStage(attributes: MutableAttributes): void {
  const shape = attributes.shape;
  if (shape?.value !== 'parallelogram' || attributes.type !== undefined) return;
  if ((attributes.tool_command?.value.trim() ?? '') !== '') return;
  const prompt = attributes.prompt;
  if (prompt === undefined || prompt.origin !== 'explicit' || prompt.value.trim() === '') return;
  setAttribute(attributes, 'type', {
    key: 'type',
    value: 'codergen',
    kind: 'derived',
    origin: 'transform',
    writtenValue: 'shape=parallelogram',
    // No key span: the lint's attribute walk knows a written attribute by its key's place, which is the shape's.
    ...(shape.valueSpan === undefined ? {} : { valueSpan: shape.valueSpan }),
  });
}

function setAttribute(target: MutableAttributes, key: string, attribute: GraphAttribute): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value: attribute,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = attribute;
  }
}

interface NodeDraft {
  readonly id: string;
  readonly attributes: MutableAttributes;
  span: SourceSpan;
  idSpan: SourceSpan;
  declared: boolean;
  readonly subgraphClasses: string[];
}

interface Scope {
  readonly nodeDefaults: MutableAttributes;
  readonly edgeDefaults: MutableAttributes;
  /** Classes derived from the labels of the enclosing subgraphs, outermost first. */
  readonly derivedClasses: readonly string[];
}

/**
 * Derives a class name from a subgraph label (spec §2.10): lowercase, spaces become hyphens, every
 * character other than `a-z`, `0-9` and `-` is dropped (surrounding whitespace is trimmed first).
 * `"Loop A"` → `"loop-a"`.
 */
export function deriveClassName(label: string): string {
  return label
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9-]/g, '');
}

/**
 * Builds the graph model from a parsed DOT file (spec §2). Never throws on user content: malformed
 * values leave the typed field undefined and are reported by `validate` (rule `attribute_type`).
 *
 * - `A -> B -> C [x]` becomes two edges `A->B`, `B->C`, both with `x` (§2.9).
 * - `node [...]` / `edge [...]` apply to later statements of the same scope; subgraph scopes inherit
 *   and nest (§2.10-§2.11). A node first mentioned in an edge is created with the defaults in force;
 *   a later node statement fills in the defaults in force there for keys it has not set explicitly.
 * - A repeated node statement merges its attributes into the node; later explicit values win. When an explicit
 *   value replaces a different explicit value (of a node or of the graph), the winner's `replaced` keeps the
 *   loser, for the lint rule `attribute_overridden`.
 * - A subgraph `label` derives a class (§2.10) added to the `classes` of the nodes declared in it,
 *   after the node's own comma-separated `class` names (§2.12).
 * - Dialect aliases (`llm_prompt`, `node_type`, ...) are stored under the canonical key with
 *   `writtenKey` set (docs/architecture.md "Dialect").
 *
 * `ast` is the AST of `parseDot`, or the statement stream of `parseDotIncrementally`, whose statements are then
 * parsed as the graph is built, so the AST of the whole file is never held at once (a `DotSyntaxError` then comes
 * from here).
 *
 * @example
 * ```ts
 * import { parseDot } from '@attractor/dot';
 * import { buildGraph } from '@attractor/graph';
 *
 * const source = 'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }';
 * const graph = buildGraph(parseDot(source), { source });
 * graph.outgoing('start')[0]?.to; // 'exit'
 * ```
 */
export function buildGraph(ast: DotAst | DotStatementStream, options: BuildGraphOptions = {}): Graph {
  const filename = options.filename ?? ast.filename;
  // Spans from `parseDot` compute `start` and `end` on access (a spread would drop them): copy them by name.
  const locate = (span: SourceSpan): SourceSpan =>
    filename === undefined || span.filename !== undefined
      ? span
      : { start: span.start, end: span.end, filename };

  const graphAttributes: MutableAttributes = {};
  const nodes = new Map<string, NodeDraft>();
  const edges: GraphEdge[] = [];

  // From the source id to the target id; of the parser's kind (positions worked out when read) when it can be.
  const edgeSpan = (from: SourceSpan, to: SourceSpan): SourceSpan => locate(spanBetween(from, to));

  const toAttribute = (attribute: DotAttribute, origin: AttributeOrigin): GraphAttribute => {
    const canonical = Object.hasOwn(DIALECT_ALIASES, attribute.key)
      ? DIALECT_ALIASES[attribute.key]
      : undefined;
    const { value, kind } = attribute.value;
    const keySpan = locate(attribute.keySpan);
    const valueSpan = locate(attribute.value.span);
    const key = canonical ?? attribute.key;
    const converted = dialectValue({
      key,
      writtenKey: canonical === undefined ? undefined : attribute.key,
      value,
    });
    if (converted !== undefined) {
      return {
        key,
        value: converted,
        kind,
        origin,
        ...(canonical === undefined ? {} : { writtenKey: attribute.key }),
        writtenValue: value,
        keySpan,
        valueSpan,
      };
    }
    // Two literals rather than a conditional spread: one fixed shape each, no temporary object.
    return canonical === undefined
      ? { key: attribute.key, value, kind, origin, keySpan, valueSpan }
      : { key: canonical, value, kind, origin, writtenKey: attribute.key, keySpan, valueSpan };
  };

  const assign = (
    target: MutableAttributes,
    attributes: readonly DotAttribute[],
    origin: AttributeOrigin,
  ) => {
    for (const attribute of attributes) {
      const converted = toAttribute(attribute, origin);
      const existing =
        origin === 'explicit' && Object.hasOwn(target, converted.key) ? target[converted.key] : undefined;
      // An explicit value replacing a different explicit one keeps it (rule `attribute_overridden`); the copy is made
      // only then, so the common case allocates nothing more.
      setAttribute(
        target,
        converted.key,
        existing?.origin === 'explicit' && existing.value !== converted.value
          ? { ...converted, replaced: existing }
          : converted,
      );
    }
  };

  const fillDefaults = (target: MutableAttributes, defaults: MutableAttributes) => {
    for (const [key, attribute] of Object.entries(defaults)) {
      const existing = Object.hasOwn(target, key) ? target[key] : undefined;
      if (existing === undefined || existing.origin === 'default') setAttribute(target, key, attribute);
    }
  };

  const joinClasses = (draft: NodeDraft, scope: Scope) => {
    for (const name of scope.derivedClasses) {
      if (!draft.subgraphClasses.includes(name)) draft.subgraphClasses.push(name);
    }
  };

  const ensureNode = (id: DotId, span: SourceSpan, scope: Scope): NodeDraft => {
    const existing = nodes.get(id.name);
    if (existing) return existing;
    const draft: NodeDraft = {
      id: id.name,
      attributes: { ...scope.nodeDefaults },
      span: locate(span),
      idSpan: locate(id.span),
      declared: false,
      subgraphClasses: [],
    };
    joinClasses(draft, scope);
    nodes.set(id.name, draft);
    return draft;
  };

  const visitNode = (statement: DotNodeStatement, scope: Scope) => {
    const draft = ensureNode(statement.id, statement.span, scope);
    if (!draft.declared) {
      draft.declared = true;
      draft.span = locate(statement.span);
      draft.idSpan = locate(statement.id.span);
    }
    fillDefaults(draft.attributes, scope.nodeDefaults);
    assign(draft.attributes, statement.attributes, 'explicit');
    joinClasses(draft, scope);
  };

  const visitEdgeChain = (statement: DotEdgeChainStatement, scope: Scope) => {
    // The ids of the node drafts, not the statement's copies: one string per node id in the graph.
    const ids = statement.nodes.map((id) => ensureNode(id, id.span, scope).id);
    // Converted once and shared by the chain's edges (attributes are immutable).
    const explicit = statement.attributes.map((attribute) => toAttribute(attribute, 'explicit'));
    for (let position = 0; position + 1 < ids.length; position += 1) {
      const attributes: MutableAttributes = { ...scope.edgeDefaults };
      for (const attribute of explicit) setAttribute(attributes, attribute.key, attribute);
      edges.push(
        createEdge({
          from: ids[position]!,
          to: ids[position + 1]!,
          index: edges.length,
          span: edgeSpan(statement.nodes[position]!.span, statement.nodes[position + 1]!.span),
          attributes,
        }),
      );
    }
  };

  // Iterative, with an explicit stack of open subgraphs: nesting depth is bounded by memory, not by the call stack
  // (issue 20 §3: thousands of nested subgraphs).
  const visit = (statements: Iterable<DotStatement>, scope: Scope, subgraphAttributes: MutableAttributes) => {
    const frames: Array<{
      readonly statements: Iterator<DotStatement>;
      readonly scope: Scope;
      readonly attributes: MutableAttributes;
    }> = [{ statements: statements[Symbol.iterator](), scope, attributes: subgraphAttributes }];
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const next = frame.statements.next();
      if (next.done === true) {
        frames.pop();
        continue;
      }
      const statement = next.value;
      switch (statement.kind) {
        case 'graphAttributes':
          assign(frame.attributes, statement.attributes, 'explicit');
          break;
        case 'attributeDeclaration':
          assign(frame.attributes, [statement.attribute], 'explicit');
          break;
        case 'nodeDefaults':
          assign(frame.scope.nodeDefaults, statement.attributes, 'default');
          break;
        case 'edgeDefaults':
          assign(frame.scope.edgeDefaults, statement.attributes, 'default');
          break;
        case 'node':
          visitNode(statement, frame.scope);
          break;
        case 'edgeChain':
          visitEdgeChain(statement, frame.scope);
          break;
        case 'subgraph': {
          const label = subgraphLabel(statement.statements);
          const derived = label === undefined ? '' : deriveClassName(label);
          const outer = frame.scope;
          const inner: Scope = {
            nodeDefaults: { ...outer.nodeDefaults },
            edgeDefaults: { ...outer.edgeDefaults },
            derivedClasses:
              derived === '' || outer.derivedClasses.includes(derived)
                ? outer.derivedClasses
                : [...outer.derivedClasses, derived],
          };
          frames.push({ statements: statement.statements[Symbol.iterator](), scope: inner, attributes: {} });
          break;
        }
      }
    }
  };

  visit(ast.statements, { nodeDefaults: {}, edgeDefaults: {}, derivedClasses: [] }, graphAttributes);

  const builtNodes: GraphNode[] = [...nodes.values()].map((draft) => {
    folderAsSubgraph(draft.attributes);
    promptedToolShapeAsStage(draft.attributes);
    const ownClasses = splitClassList(draft.attributes.class?.value ?? '');
    const classes = [...ownClasses, ...draft.subgraphClasses.filter((name) => !ownClasses.includes(name))];
    return createNode({
      id: draft.id,
      span: draft.span,
      idSpan: draft.idSpan,
      declared: draft.declared,
      attributes: draft.attributes,
      classes,
      subgraphClasses: draft.subgraphClasses,
    });
  });

  return new Graph({
    id: ast.id.name,
    idSpan: locate(ast.id.span),
    ...(ast.id.quoted === true ? { idQuoted: true } : {}),
    attributes: graphAttributes,
    settings: graphSettings(graphAttributes, { nodeCount: builtNodes.length }),
    nodes: builtNodes,
    edges,
    ...(filename === undefined ? {} : { filename }),
    ...(options.source === undefined ? {} : { source: options.source }),
  });
}

/** The label a subgraph declares in its own body (`label = "..."` or `graph [label="..."]`), last one wins. */
function subgraphLabel(statements: readonly DotStatement[]): string | undefined {
  let label: string | undefined;
  for (const statement of statements) {
    if (statement.kind === 'attributeDeclaration' && statement.attribute.key === 'label') {
      label = statement.attribute.value.value;
    } else if (statement.kind === 'graphAttributes') {
      for (const attribute of statement.attributes)
        if (attribute.key === 'label') label = attribute.value.value;
    }
  }
  return label;
}
