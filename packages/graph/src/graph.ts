/**
 * The Attractor graph model (spec §2): nodes, edges and graph attributes with their typed values and
 * source spans. A `Graph` is immutable; transforms return a new one (spec §9.1).
 *
 * Typed fields (`node.goalGate`, `edge.weight`, `graph.settings.goal`, ...) are derived from the raw
 * attributes by `attribute-schema.ts`; this file only holds the shapes and the structural queries.
 */
import type { DotValueKind, SourceSpan } from '@attractor/dot';
import type { InputDeclaration, StateMergeRule } from './input-declaration.js';

/** Where an attribute's value came from. */
export type AttributeOrigin =
  /** Written on the node, edge or graph itself. */
  | 'explicit'
  /** Inherited from a `node [...]` / `edge [...]` default block in scope (spec §2.11). */
  | 'default'
  /** Set by the model stylesheet transform (spec §8). */
  | 'stylesheet'
  /** Set by another transform (e.g. `$goal` expansion, subgraph class derivation). */
  | 'transform';

/** One attribute after scoping: the decoded string value and where it was written. */
export interface GraphAttribute {
  /** Canonical key (a dialect alias such as `llm_prompt` is stored under `prompt`). */
  readonly key: string;
  /** Decoded value, always a string; the typed view lives on the node/edge/graph fields. */
  readonly value: string;
  /** Token kind as written, or `derived` when a transform produced it. */
  readonly kind: DotValueKind | 'derived';
  readonly origin: AttributeOrigin;
  /** The key as written when it differs from `key` (a dialect alias). */
  readonly writtenKey?: string;
  /** The value as written when another runner's form was converted (`type="exec"` is stored as `tool`). */
  readonly writtenValue?: string;
  /** Span of the key as written, when it was written in the source. */
  readonly keySpan?: SourceSpan;
  /** Span of the value as written, when it was written in the source. */
  readonly valueSpan?: SourceSpan;
  /**
   * The explicit attribute this one replaced, when an explicit value of the same key (a repeated node statement,
   * a graph attribute set twice, or the same key twice in one statement) was overridden by a different explicit
   * value: later values win (spec §2), and lint rule `attribute_overridden` warns. Absent otherwise, also when a
   * `node [...]` default was replaced or the value was the same. It may itself have `replaced` (a chain of three).
   */
  readonly replaced?: GraphAttribute;
}

/** Raw attributes by canonical key. */
export type GraphAttributes = Readonly<Record<string, GraphAttribute>>;

/** The context fidelity modes of spec §5.4. */
export type FidelityMode =
  | 'full'
  | 'truncate'
  | 'compact'
  | 'summary:low'
  | 'summary:medium'
  | 'summary:high';

/** LLM reasoning effort (spec §2.6). */
export type ReasoningEffort = 'low' | 'medium' | 'high';

/** Built-in handler types of spec §2.8. Custom handler types are any other string. */
export type BuiltInHandlerType =
  | 'start'
  | 'exit'
  | 'codergen'
  | 'wait.human'
  | 'conditional'
  | 'parallel'
  | 'parallel.fan_in'
  | 'tool'
  | 'stack.manager_loop'
  | 'subgraph'
  | 'foreach';

/** The Graphviz shapes that map to a handler type (spec §2.8). */
export type MappedShape =
  | 'Mdiamond'
  | 'Msquare'
  | 'box'
  | 'hexagon'
  | 'diamond'
  | 'component'
  | 'tripleoctagon'
  | 'parallelogram'
  | 'house';

/** Shape-to-handler-type mapping of spec §2.8 / Appendix B. */
export const SHAPE_TO_HANDLER_TYPE = {
  Mdiamond: 'start',
  Msquare: 'exit',
  box: 'codergen',
  hexagon: 'wait.human',
  diamond: 'conditional',
  component: 'parallel',
  tripleoctagon: 'parallel.fan_in',
  parallelogram: 'tool',
  house: 'stack.manager_loop',
} as const satisfies Record<MappedShape, BuiltInHandlerType>;

/**
 * Every built-in handler type: those of the shape table (spec §2.8), `subgraph` (spec §9.4 sub-pipeline nodes) and
 * `foreach` (README "Typed data"), which have no shape and are chosen with `type="subgraph"` / `type="foreach"`.
 */
export const BUILT_IN_HANDLER_TYPE_NAMES: readonly BuiltInHandlerType[] = [
  ...Object.values(SHAPE_TO_HANDLER_TYPE),
  'subgraph',
  'foreach',
];

/** A node with its raw attributes and the typed fields of spec §2.6 / Appendix A. */
export interface GraphNode {
  readonly id: string;
  /** Span of the statement that first declared or mentioned the node. */
  readonly span?: SourceSpan;
  /** Span of the node id where the node was first declared (node statement) or, failing that, first mentioned. */
  readonly idSpan?: SourceSpan;
  /** True when a node statement declares the node; false when it only appears in edges (spec §2.9). */
  readonly declared?: boolean;
  readonly attributes: GraphAttributes;
  /** Class names from `class` (comma-separated) plus classes derived from enclosing subgraph labels (§2.10, §2.12). */
  readonly classes: readonly string[];
  /**
   * Classes derived from the labels of the subgraphs enclosing the node's declaration, outermost first
   * (spec §2.10). Also present in `classes`; kept apart for thread resolution (spec §5.4 step 4).
   */
  readonly subgraphClasses?: readonly string[];
  /** Display name. Default: the node id. */
  readonly label: string;
  /** Graphviz shape. Default: `box`. */
  readonly shape: string;
  /** Explicit handler type (`type` attribute), when set. */
  readonly type?: string;
  /** Prompt text (`$goal` expanded once transforms ran). Default: empty. */
  readonly prompt: string;
  /** Additional attempts beyond the first; undefined inherits the graph's `default_max_retries`. */
  readonly maxRetries?: number;
  readonly goalGate: boolean;
  readonly retryTarget?: string;
  readonly fallbackRetryTarget?: string;
  readonly fidelity?: FidelityMode;
  readonly threadId?: string;
  /** Maximum execution time of one attempt, in milliseconds. */
  readonly timeoutMs?: number;
  readonly llmModel?: string;
  readonly llmProvider?: string;
  /** Default: `high`. */
  readonly reasoningEffort: ReasoningEffort;
  readonly autoStatus: boolean;
  readonly allowPartial: boolean;
  /**
   * Loop guard: maximum visits of this node per run (docs/architecture.md "Loop guards"); undefined uses the
   * graph's `max_node_visits`.
   */
  readonly maxVisits?: number;
}

/** An edge (one per consecutive pair of a chain, spec §2.9) with the typed fields of spec §2.7. */
export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  /** Declaration order across the whole graph, starting at 0. */
  readonly index: number;
  readonly span?: SourceSpan;
  readonly attributes: GraphAttributes;
  /** Default: empty. */
  readonly label: string;
  /** Condition expression (spec §10). Default: empty (unconditional). */
  readonly condition: string;
  /** Default: 0. */
  readonly weight: number;
  readonly fidelity?: FidelityMode;
  readonly threadId?: string;
  readonly loopRestart: boolean;
}

/** Typed graph-level attributes (spec §2.5, Appendix A, docs/architecture.md "Loop guards"). */
export interface GraphSettings {
  readonly goal: string;
  readonly label: string;
  readonly modelStylesheet: string;
  /** Default: 0. */
  readonly defaultMaxRetries: number;
  readonly retryTarget?: string;
  readonly fallbackRetryTarget?: string;
  readonly defaultFidelity?: FidelityMode;
  /** Graph-level default thread for `full` fidelity (`default_thread`, alias `context_thread_default`). */
  readonly defaultThread?: string;
  /** Loop guard: visits per node. Default: 25. */
  readonly maxNodeVisits: number;
  /** Loop guard: node executions per run. Default: 1000, or 10 per node in graphs of over 100 nodes. */
  readonly maxSteps: number;
  /** Goal-gate jumps per run. Default: 5. */
  readonly maxGateRetries: number;
  /** Run budget in USD (`max_budget_usd`): no model call starts once the run's calls cost this much. Default: none. */
  readonly maxBudgetUsd?: number;
  /** Run budget in tokens (`max_tokens`): no model call starts once the run's calls used this many. Default: none. */
  readonly maxTokens?: number;
  readonly toolHooksPre?: string;
  readonly toolHooksPost?: string;
  /** What the pipeline takes when it starts (`inputs`, README "Typed data"); absent when unset or malformed. */
  readonly inputs?: InputDeclaration;
  /** The context keys that form the run's result (`outputs`); empty when unset or malformed. */
  readonly outputs: readonly string[];
  /** Declared state fields by key, with their merge rule (`state`, README "Typed data"); empty when none. */
  readonly state: Readonly<Record<string, StateMergeRule>>;
}

/** Everything `new Graph()` needs. */
export interface GraphInit {
  readonly id: string;
  /** Span of the graph id on the `digraph` line, where graph-level findings point. */
  readonly idSpan?: SourceSpan;
  /** True when the id was written as a quoted string (`digraph "sp-workflow"`, legal Graphviz; spec §2.2 has none). */
  readonly idQuoted?: boolean;
  readonly attributes: GraphAttributes;
  readonly settings: GraphSettings;
  /** In declaration order. */
  readonly nodes: readonly GraphNode[];
  /** In declaration order. */
  readonly edges: readonly GraphEdge[];
  readonly filename?: string;
  /** The DOT source the graph was built from, for diagnostics. */
  readonly source?: string;
}

const NO_EDGES: readonly GraphEdge[] = Object.freeze([]);

/**
 * An immutable pipeline graph with the queries handlers and the engine need.
 * Build one from DOT with `buildGraph` / `prepareGraph`; transforms return a new one with `with()`.
 */
export class Graph {
  readonly id: string;
  /** Span of the graph id on the `digraph` line, when the graph was built from DOT. */
  readonly idSpan?: SourceSpan;
  /** True when the id was written as a quoted string (see {@link GraphInit.idQuoted}). */
  readonly idQuoted?: boolean;
  readonly attributes: GraphAttributes;
  readonly settings: GraphSettings;
  /** Nodes by id, in declaration order. */
  readonly nodes: ReadonlyMap<string, GraphNode>;
  readonly edges: readonly GraphEdge[];
  readonly filename?: string;
  readonly source?: string;
  readonly #outgoing: Map<string, GraphEdge[]>;
  readonly #incoming: Map<string, GraphEdge[]>;
  // Found on first use and kept: the graph never changes (lint rules ask for them many times).
  #startNodes: readonly GraphNode[] | undefined;
  #exitNodes: readonly GraphNode[] | undefined;

  constructor(init: GraphInit) {
    this.id = init.id;
    if (init.idSpan !== undefined) this.idSpan = init.idSpan;
    if (init.idQuoted === true) this.idQuoted = true;
    this.attributes = init.attributes;
    this.settings = init.settings;
    this.nodes = new Map(init.nodes.map((node) => [node.id, node]));
    this.edges = init.edges;
    if (init.filename !== undefined) this.filename = init.filename;
    if (init.source !== undefined) this.source = init.source;
    const indexes = edgeIndexesOf(init.edges);
    this.#outgoing = indexes.outgoing;
    this.#incoming = indexes.incoming;
  }

  /** The node with this id, or undefined. */
  node(id: string): GraphNode | undefined {
    return this.nodes.get(id);
  }

  /** Outgoing edges of a node, in declaration order. */
  outgoing(id: string): readonly GraphEdge[] {
    return this.#outgoing.get(id) ?? NO_EDGES;
  }

  /** Incoming edges of a node, in declaration order. */
  incoming(id: string): readonly GraphEdge[] {
    return this.#incoming.get(id) ?? NO_EDGES;
  }

  /** All start nodes (spec §4.3: handler type `start`, shape `Mdiamond`, or id `start`/`Start`). Lint requires exactly one. */
  get startNodes(): readonly GraphNode[] {
    this.#startNodes ??= [...this.nodes.values()].filter(
      (node) => this.handlerType(node) === 'start' || node.id === 'start' || node.id === 'Start',
    );
    return [...this.#startNodes];
  }

  /** All exit nodes (spec §4.4: handler type `exit`, shape `Msquare`, or id `exit`/`end`). Lint requires exactly one. */
  get exitNodes(): readonly GraphNode[] {
    this.#exitNodes ??= [...this.nodes.values()].filter(
      (node) => this.handlerType(node) === 'exit' || node.id === 'exit' || node.id === 'end',
    );
    return [...this.#exitNodes];
  }

  /** The start node, when there is exactly one candidate by handler type, shape or id. */
  get startNode(): GraphNode | undefined {
    const candidates = this.startNodes;
    return candidates.length === 1 ? candidates[0] : undefined;
  }

  /** The exit node, when there is exactly one candidate by handler type, shape or id. */
  get exitNode(): GraphNode | undefined {
    const candidates = this.exitNodes;
    return candidates.length === 1 ? candidates[0] : undefined;
  }

  /**
   * The handler type of a node (spec §2.8, §4.2): explicit `type`, else the shape mapping, else `codergen`.
   * Whether a handler is registered for it is the registry's concern.
   */
  handlerType(node: GraphNode): string {
    if (node.type !== undefined && node.type !== '') return node.type;
    return (SHAPE_TO_HANDLER_TYPE as Record<string, string>)[node.shape] ?? 'codergen';
  }

  /** A copy with some parts replaced (spec §9.1: transforms return a new graph). */
  with(changes: Partial<GraphInit>): Graph {
    // The same edges have the same indexes: the new graph takes them over instead of building them again.
    if (changes.edges === undefined) {
      reusableIndexes = { edges: this.edges, outgoing: this.#outgoing, incoming: this.#incoming };
    }
    return new Graph({
      id: changes.id ?? this.id,
      ...optional('idSpan', changes.idSpan ?? this.idSpan),
      ...optional('idQuoted', changes.idQuoted ?? this.idQuoted),
      attributes: changes.attributes ?? this.attributes,
      settings: changes.settings ?? this.settings,
      nodes: changes.nodes ?? [...this.nodes.values()],
      edges: changes.edges ?? this.edges,
      ...optional('filename', changes.filename ?? this.filename),
      ...optional('source', changes.source ?? this.source),
    });
  }
}

interface EdgeIndexes {
  readonly edges: readonly GraphEdge[];
  readonly outgoing: Map<string, GraphEdge[]>;
  readonly incoming: Map<string, GraphEdge[]>;
}

/** Set by `Graph.with` for the constructor it calls when the edges stay the same. */
let reusableIndexes: EdgeIndexes | undefined;

/** The outgoing and incoming edges of every node id: taken over from `Graph.with`, else built. */
function edgeIndexesOf(edges: readonly GraphEdge[]): EdgeIndexes {
  const reusable = reusableIndexes;
  reusableIndexes = undefined;
  if (reusable !== undefined && reusable.edges === edges) return reusable;
  const outgoing = new Map<string, GraphEdge[]>();
  const incoming = new Map<string, GraphEdge[]>();
  for (const edge of edges) {
    push(outgoing, edge.from, edge);
    push(incoming, edge.to, edge);
  }
  trim(outgoing);
  trim(incoming);
  return { edges, outgoing, incoming };
}

function push(map: Map<string, GraphEdge[]>, key: string, edge: GraphEdge): void {
  const list = map.get(key);
  if (list) list.push(edge);
  else map.set(key, [edge]);
}

/** Replaces each list that grew by `push` (room for 17 edges from the second one on) by an exact-size copy. */
function trim(map: Map<string, GraphEdge[]>): void {
  for (const [key, list] of map) if (list.length > 1) map.set(key, list.slice());
}

function optional<TKey extends string, TValue>(
  key: TKey,
  value: TValue | undefined,
): Partial<Record<TKey, TValue>> {
  return value === undefined ? {} : ({ [key]: value } as Record<TKey, TValue>);
}
