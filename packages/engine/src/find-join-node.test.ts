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

  it('skips the fan-in of a nested block and returns the one that closes the outer block', () => {
    const graph = createTestGraph({
      nodes: [
        { id: 'outer', shape: 'component' },
        { id: 'inner', shape: 'component' },
        { id: 'inner_join', shape: 'tripleoctagon' },
        { id: 'outer_join', shape: 'tripleoctagon' },
      ],
      edges: [
        'outer -> inner',
        'inner -> x -> inner_join',
        'inner -> y -> inner_join',
        'inner_join -> outer_join',
        'outer -> z -> outer_join',
        'outer_join -> exit',
      ],
    });
    expect(findJoinNode(graph, 'outer')).toBe('outer_join');
    expect(findJoinNode(graph, 'inner')).toBe('inner_join');
  });

  it('falls back to the first node every branch reaches when there is no fan-in', () => {
    const graph = createTestGraph({
      edges: ['fan -> a -> synth', 'fan -> b -> b2 -> synth', 'synth -> exit'],
    });
    expect(findJoinNode(graph, 'fan')).toBe('synth');
  });

  it('ends on a cycle through a parallel node that has no fan-in (corpus: kilroy reference_template)', () => {
    const graph = createTestGraph({
      nodes: [{ id: 'fan', shape: 'component' }],
      edges: ['start -> fan', 'fan -> a -> work', 'fan -> b -> work', 'work -> fan', 'work -> exit'],
    });
    expect(findJoinNode(graph, 'fan')).toBe('work');
  });

  it('returns undefined when the branches never meet', () => {
    const graph = createTestGraph({ edges: ['fan -> a -> x', 'fan -> b -> y'] });
    expect(findJoinNode(graph, 'fan')).toBeUndefined();
  });
});
