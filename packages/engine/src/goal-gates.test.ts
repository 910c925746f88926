import { describe, expect, it } from 'vitest';
import { findUnsatisfiedGoalGate, resolveRetryTarget } from './goal-gates.js';
import { createTestGraph } from './test/graph-builder.js';

describe('findUnsatisfiedGoalGate (spec §3.4)', () => {
  const graph = createTestGraph({
    nodes: [
      { id: 'a', goalGate: true },
      { id: 'b', goalGate: true },
    ],
    edges: ['start -> a -> b -> exit'],
  });

  it('returns the first gate whose latest outcome is not a success', () => {
    expect(
      findUnsatisfiedGoalGate({ graph, nodeOutcomes: { a: { status: 'success' }, b: { status: 'fail' } } })
        ?.id,
    ).toBe('b');
  });

  it('accepts partial_success and custom outcome words', () => {
    expect(
      findUnsatisfiedGoalGate({
        graph,
        nodeOutcomes: { a: { status: 'partial_success' }, b: { status: 'done' } },
      }),
    ).toBeUndefined();
  });

  it('does not check a gate that never ran', () => {
    expect(findUnsatisfiedGoalGate({ graph, nodeOutcomes: { a: { status: 'success' } } })).toBeUndefined();
  });
});

describe('resolveRetryTarget (spec §3.4 chain)', () => {
  it('prefers the node retry_target, then its fallback, then the graph targets', () => {
    const graph = createTestGraph({
      settings: { retryTarget: 'g1', fallbackRetryTarget: 'g2' },
      nodes: [
        { id: 'full', retryTarget: 'n1', fallbackRetryTarget: 'n2' },
        { id: 'fallbackOnly', fallbackRetryTarget: 'n2' },
        { id: 'bare' },
        'n1',
        'n2',
        'g1',
        'g2',
      ],
      edges: ['start -> full -> fallbackOnly -> bare -> exit'],
    });
    expect(resolveRetryTarget({ node: graph.node('full')!, graph })).toEqual({
      nodeId: 'n1',
      source: 'node',
    });
    expect(resolveRetryTarget({ node: graph.node('fallbackOnly')!, graph })).toEqual({
      nodeId: 'n2',
      source: 'node_fallback',
    });
    expect(resolveRetryTarget({ node: graph.node('bare')!, graph })).toEqual({
      nodeId: 'g1',
      source: 'graph',
    });
    expect(resolveRetryTarget({ node: graph.node('bare')!, graph, includeGraph: false })).toBeUndefined();
  });

  it('skips a target naming a missing node and uses the fallback', () => {
    const graph = createTestGraph({
      nodes: [{ id: 'a', retryTarget: 'nope', fallbackRetryTarget: 'b' }, 'b'],
      edges: ['start -> a -> exit'],
    });
    expect(resolveRetryTarget({ node: graph.node('a')!, graph })).toEqual({
      nodeId: 'b',
      source: 'node_fallback',
    });
  });

  it('uses the graph fallback when the graph retry_target is unset', () => {
    const graph = createTestGraph({
      settings: { fallbackRetryTarget: 'b' },
      nodes: ['b'],
      edges: ['start -> a -> exit'],
    });
    expect(resolveRetryTarget({ node: graph.node('a')!, graph })).toEqual({
      nodeId: 'b',
      source: 'graph_fallback',
    });
    expect(resolveRetryTarget({ node: graph.node('a')!, graph, allowFallback: false })).toBeUndefined();
  });
});
