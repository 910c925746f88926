import { describe, expect, it } from 'vitest';
import { findJoinNode } from './find-join-node.js';
import type { Graph } from './graph.js';
import { prepareGraph } from './prepare-graph.js';

/** A graph from DOT statements (`fan [shape=component]`, `a -> b`). */
function graphOf(...statements: string[]): Graph {
  return prepareGraph(`digraph g {\n${statements.join('\n')}\n}`).graph!;
}

describe('findJoinNode (docs/architecture.md "Parallel fan-out")', () => {
  it('reads which nodes open and close a block from the traits it is given', () => {
    const traitsOf = (node: { type?: string }) => (node.type === 'collect' ? { joinsBranches: true } : {});
    const withFanIn = graphOf(
      'fan [type="spread"]',
      'gather [type="collect"]',
      'fan -> a -> gather -> c',
      'fan -> b -> c',
    );
    expect(findJoinNode(withFanIn, 'fan')).toBe('c');
    expect(findJoinNode(withFanIn, 'fan', { traitsOf })).toBe('gather');
  });

  it('finds the fan-in node breadth-first from the branches', () => {
    const graph = graphOf(
      'merge [shape=tripleoctagon]',
      'fan -> a -> a2 -> merge',
      'fan -> b -> merge',
      'merge -> exit',
    );
    expect(findJoinNode(graph, 'fan')).toBe('merge');
  });

  it('skips the fan-in of a nested block and returns the one that closes the outer block', () => {
    const graph = graphOf(
      'outer [shape=component]',
      'inner [shape=component]',
      'inner_join [shape=tripleoctagon]',
      'outer_join [shape=tripleoctagon]',
      'outer -> inner',
      'inner -> x -> inner_join',
      'inner -> y -> inner_join',
      'inner_join -> outer_join',
      'outer -> z -> outer_join',
      'outer_join -> exit',
    );
    expect(findJoinNode(graph, 'outer')).toBe('outer_join');
    expect(findJoinNode(graph, 'inner')).toBe('inner_join');
  });

  it('falls back to the first node every branch reaches when there is no fan-in', () => {
    const graph = graphOf('fan -> a -> synth', 'fan -> b -> b2 -> synth', 'synth -> exit');
    expect(findJoinNode(graph, 'fan')).toBe('synth');
  });

  it('ends on a cycle through a parallel node that has no fan-in (corpus: kilroy reference_template)', () => {
    const graph = graphOf(
      'fan [shape=component]',
      'start -> fan',
      'fan -> a -> work',
      'fan -> b -> work',
      'work -> fan',
      'work -> exit',
    );
    expect(findJoinNode(graph, 'fan')).toBe('work');
  });

  it('returns undefined when the branches never meet', () => {
    const graph = graphOf('fan -> a -> x', 'fan -> b -> y');
    expect(findJoinNode(graph, 'fan')).toBeUndefined();
  });
});
