/**
 * A tiny graph builder for tests that do not want to go through DOT: typed nodes and edges with the defaults of
 * spec §2.5–2.7, over `new Graph(...)` from `@attractor/graph`.
 */
import {
  type FidelityMode,
  Graph,
  type GraphAttribute,
  type GraphAttributes,
  type GraphEdge,
  type GraphNode,
  type GraphSettings,
} from '@attractor/graph';

/** A node for {@link createTestGraph}: an id plus any typed field, and raw attributes (`human.default_choice`, ...). */
export type TestNodeSpec = Partial<Omit<GraphNode, 'attributes'>> & {
  readonly id: string;
  /** Raw attributes as DOT would give them (string values). */
  readonly attrs?: Readonly<Record<string, string>>;
};

/** An edge for {@link createTestGraph}. `from`/`to` are required; the other typed fields default as in spec §2.7. */
export type TestEdgeSpec = Partial<Omit<GraphEdge, 'attributes' | 'index'>> & {
  readonly from: string;
  readonly to: string;
  readonly attrs?: Readonly<Record<string, string>>;
};

/** Options of {@link createTestGraph}. */
export interface TestGraphSpec {
  /** Graph name. Default: `test`. */
  readonly id?: string;
  readonly settings?: Partial<GraphSettings>;
  /** Raw graph attributes (mirrored into the context as `graph.*`). */
  readonly attrs?: Readonly<Record<string, string>>;
  /** Nodes. Nodes named only by edges are created with defaults. Ids `start`/`exit`/`end` get their shapes. */
  readonly nodes?: readonly (TestNodeSpec | string)[];
  /** Edges, or chains written as `'a -> b -> c'`. */
  readonly edges?: readonly (TestEdgeSpec | string)[];
  /** Stored as `graph.source` (changes the graph's sha256). */
  readonly source?: string;
  readonly filename?: string;
}

function attributes(raw: Readonly<Record<string, string>> | undefined): GraphAttributes {
  const result: Record<string, GraphAttribute> = {};
  for (const [key, value] of Object.entries(raw ?? {})) {
    result[key] = { key, value, kind: 'string', origin: 'explicit' };
  }
  return result;
}

/** A graph node with defaults (shape `box`, label = id, reasoning effort `high`). */
export function createTestNode(spec: TestNodeSpec): GraphNode {
  const { attrs, ...fields } = spec;
  const defaultShape =
    spec.id === 'start' ? 'Mdiamond' : spec.id === 'exit' || spec.id === 'end' ? 'Msquare' : 'box';
  return {
    label: spec.id,
    shape: defaultShape,
    prompt: '',
    goalGate: false,
    reasoningEffort: 'high',
    autoStatus: false,
    allowPartial: false,
    classes: [],
    ...fields,
    attributes: attributes(attrs),
  };
}

/** The default graph settings (spec §2.5, docs/architecture.md "Loop guards"). */
export function defaultTestSettings(overrides: Partial<GraphSettings> = {}): GraphSettings {
  return {
    goal: '',
    label: '',
    modelStylesheet: '',
    defaultMaxRetries: 0,
    maxNodeVisits: 25,
    maxSteps: 1000,
    maxGateRetries: 5,
    outputs: [],
    state: {},
    ...overrides,
  };
}

/**
 * Builds a {@link Graph} from a compact spec.
 *
 * @example
 * const graph = createTestGraph({
 *   nodes: [{ id: 'work', goalGate: true }],
 *   edges: ['start -> work -> exit', { from: 'work', to: 'start', condition: 'outcome=fail' }],
 * });
 */
export function createTestGraph(spec: TestGraphSpec): Graph {
  const nodes = new Map<string, GraphNode>();
  for (const item of spec.nodes ?? []) {
    const node = createTestNode(typeof item === 'string' ? { id: item } : item);
    nodes.set(node.id, node);
  }
  const edges: GraphEdge[] = [];
  const addEdge = (edgeSpec: TestEdgeSpec) => {
    const { attrs, ...fields } = edgeSpec;
    for (const id of [edgeSpec.from, edgeSpec.to]) if (!nodes.has(id)) nodes.set(id, createTestNode({ id }));
    edges.push({
      label: '',
      condition: '',
      weight: 0,
      loopRestart: false,
      ...fields,
      index: edges.length,
      attributes: attributes(attrs),
    });
  };
  for (const item of spec.edges ?? []) {
    if (typeof item === 'string') {
      const ids = item.split('->').map((part) => part.trim());
      for (let index = 0; index + 1 < ids.length; index++)
        addEdge({ from: ids[index]!, to: ids[index + 1]! });
    } else addEdge(item);
  }
  const settings = defaultTestSettings(spec.settings);
  const graphAttrs: Record<string, string> = { ...spec.attrs };
  if (settings.goal !== '' && graphAttrs.goal === undefined) graphAttrs.goal = settings.goal;
  return new Graph({
    id: spec.id ?? 'test',
    attributes: attributes(graphAttrs),
    settings,
    nodes: [...nodes.values()],
    edges,
    ...(spec.source === undefined ? {} : { source: spec.source }),
    ...(spec.filename === undefined ? {} : { filename: spec.filename }),
  });
}

/** A linear chain `start -> n1 -> ... -> exit` with `count` box nodes named `n1`..`n<count>`. */
export function createChainGraph(count: number, fidelity?: FidelityMode): Graph {
  const ids = ['start', ...Array.from({ length: count }, (_, index) => `n${index + 1}`), 'exit'];
  return createTestGraph({
    id: `chain_${count}`,
    settings: { maxSteps: count + 10, ...(fidelity === undefined ? {} : { defaultFidelity: fidelity }) },
    edges: [ids.join(' -> ')],
  });
}
