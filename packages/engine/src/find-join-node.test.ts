import { describe, expect, it } from 'vitest';
import { findJoinNode } from './find-join-node.js';
import { createTestGraph } from './test/graph-builder.js';

describe('findJoinNode (DESIGN.md Parallel fan-out)', () => {
  it('finds the fan-in node breadth-first from the branches', () => {
    const graph = createTestGraph({
      nodes: [{ id: 'merge', shape: 'tripleoctagon' }],
      edges: ['fan -> a -> a2 -> merge', 'fan -> b -> merge', 'merge -> exit'],
    });
    expect(findJoinNode(graph, 'fan')).toBe('merge');
  });

  it('falls back to the first node every branch reaches', () => {
    const graph = createTestGraph({
      edges: ['fan -> a -> synth', 'fan -> b -> b2 -> synth', 'synth -> exit'],
    });
    expect(findJoinNode(graph, 'fan')).toBe('synth');
  });

  it('returns undefined when the branches never meet', () => {
    const graph = createTestGraph({ edges: ['fan -> a -> x', 'fan -> b -> y'] });
    expect(findJoinNode(graph, 'fan')).toBeUndefined();
  });
});
