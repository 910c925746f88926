import { describe, expect, it } from 'vitest';
import { Graph, type GraphEdge, type GraphNode, type GraphSettings } from './graph.js';

const settings: GraphSettings = {
  goal: '',
  label: '',
  modelStylesheet: '',
  defaultMaxRetries: 0,
  maxNodeVisits: 25,
  maxSteps: 1000,
  maxGateRetries: 5,
  outputs: [],
  state: {},
};

function createNode(id: string, overrides: Partial<GraphNode> = {}): GraphNode {
  return {
    id,
    attributes: {},
    classes: [],
    label: id,
    shape: 'box',
    prompt: '',
    goalGate: false,
    reasoningEffort: 'high',
    autoStatus: false,
    allowPartial: false,
    ...overrides,
  };
}

function createEdge(from: string, to: string, index: number): GraphEdge {
  return { from, to, index, attributes: {}, label: '', condition: '', weight: 0, loopRestart: false };
}

describe('Graph (spec §2.8, §4.2)', () => {
  const graph = new Graph({
    id: 'G',
    attributes: {},
    settings,
    nodes: [
      createNode('begin', { shape: 'Mdiamond' }),
      createNode('work'),
      createNode('ask', { shape: 'hexagon' }),
      createNode('custom', { shape: 'hexagon', type: 'my.handler' }),
      createNode('done', { shape: 'Msquare' }),
    ],
    edges: [
      createEdge('begin', 'work', 0),
      createEdge('work', 'ask', 1),
      createEdge('ask', 'done', 2),
      createEdge('ask', 'work', 3),
    ],
  });

  it('indexes outgoing and incoming edges in declaration order', () => {
    expect(graph.outgoing('ask').map((edge) => edge.to)).toEqual(['done', 'work']);
    expect(graph.incoming('work').map((edge) => edge.from)).toEqual(['begin', 'ask']);
    expect(graph.outgoing('done')).toEqual([]);
  });

  it('resolves handler types: explicit type, then shape, then codergen', () => {
    expect(graph.handlerType(graph.node('custom')!)).toBe('my.handler');
    expect(graph.handlerType(graph.node('ask')!)).toBe('wait.human');
    expect(graph.handlerType(createNode('x', { shape: 'ellipse' }))).toBe('codergen');
  });

  it('finds the start and exit nodes by shape', () => {
    expect(graph.startNode?.id).toBe('begin');
    expect(graph.exitNode?.id).toBe('done');
  });

  it('returns a new graph from with() and leaves the original unchanged', () => {
    const smaller = graph.with({ edges: graph.edges.slice(0, 1) });
    expect(smaller.outgoing('work')).toEqual([]);
    expect(graph.outgoing('work')).toHaveLength(1);
  });
});
