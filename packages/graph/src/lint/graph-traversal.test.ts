import { parseDot } from '@attractor/dot';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../build-graph.js';
import {
  breadthFirstTree,
  dominatorsOf,
  nodesReachingAny,
  reachableFrom,
  reachableFromAll,
  reachableFromStart,
  shortestPath,
  treePath,
} from './graph-traversal.js';

function graphOf(body: string) {
  return buildGraph(parseDot(`digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n${body}\n}`));
}

describe('graph traversals', () => {
  const diamond = graphOf('  start -> a -> c -> exit\n  start -> b -> c\n  c -> d -> c\n  e -> exit');

  it('reachableFrom walks forward, stopping below stopAt nodes and never entering avoided ones', () => {
    expect([...reachableFrom(diamond, 'start')].sort()).toEqual(['a', 'b', 'c', 'd', 'exit', 'start']);
    expect([...reachableFrom(diamond, 'start', { stopAt: (id) => id === 'c' })].sort()).toEqual([
      'a',
      'b',
      'c',
      'start',
    ]);
    expect([...reachableFrom(diamond, 'start', { avoid: new Set(['a', 'b']) })]).toEqual(['start']);
  });

  it('reachableFromAll is the union of the walks from each start', () => {
    expect([...reachableFromAll(diamond, ['d', 'e'])].sort()).toEqual(['c', 'd', 'e', 'exit']);
    expect([...reachableFromAll(diamond, [])]).toEqual([]);
  });

  it('nodesReachingAny walks backward from every target', () => {
    expect([...nodesReachingAny(diamond, ['a', 'e'])].sort()).toEqual(['a', 'e', 'start']);
  });

  it('reachableFromStart is the walk from the start node, or empty without a single start', () => {
    expect([...reachableFromStart(diamond)].sort()).toEqual(['a', 'b', 'c', 'd', 'exit', 'start']);
    expect([...reachableFromStart(graphOf('  begin [shape=Mdiamond]\n  begin -> exit'))]).toEqual([]);
  });

  it('breadthFirstTree and treePath give the route shortestPath finds without avoid', () => {
    const tree = breadthFirstTree(diamond, 'start');
    expect(treePath(tree, 'exit')).toEqual(['start', 'a', 'c', 'exit']);
    expect(shortestPath(diamond, 'start', 'exit')).toEqual(['start', 'a', 'c', 'exit']);
    expect(treePath(tree, 'e')).toBeUndefined();
    expect(shortestPath(diamond, 'start', 'exit', new Set(['a']))).toEqual(['start', 'b', 'c', 'exit']);
    expect(shortestPath(diamond, 'start', 'exit', new Set(['c']))).toBeUndefined();
  });

  it('dominatorsOf lists the nodes every route from the root to the target passes', () => {
    expect([...dominatorsOf(diamond, 'start', 'exit')].sort()).toEqual(['c', 'exit', 'start']);
    expect([...dominatorsOf(diamond, 'start', 'd')].sort()).toEqual(['c', 'd', 'start']);
    // Unreachable from the root: no dominators.
    expect([...dominatorsOf(diamond, 'start', 'e')]).toEqual([]);
    // Loops back into the chain do not hide a dominator; a second way around does remove it.
    const loop = graphOf('  start -> a -> b -> c -> exit\n  c -> a\n  b -> a');
    expect([...dominatorsOf(loop, 'start', 'exit')].sort()).toEqual(['a', 'b', 'c', 'exit', 'start']);
    const around = graphOf('  start -> a -> b -> c -> exit\n  a -> c');
    expect([...dominatorsOf(around, 'start', 'exit')].sort()).toEqual(['a', 'c', 'exit', 'start']);
  });

  it('dominatorsOf agrees with removing each node and walking again, on generated graphs', () => {
    let seed = 11;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % below;
    };
    for (let round = 0; round < 200; round += 1) {
      const count = 3 + random(10);
      const ids = ['start', ...Array.from({ length: count }, (_, index) => `n${index}`), 'exit'];
      const edges = Array.from({ length: 2 * count }, () => {
        const from = random(ids.length - 1);
        return `  ${ids[from]} -> ${ids[random(3) === 0 ? random(ids.length) : from + 1 + random(ids.length - from - 1)]}`;
      });
      const graph = graphOf(edges.join('\n'));
      const expected = reachableFrom(graph, 'start').has('exit')
        ? ids.filter(
            (id) =>
              id === 'start' ||
              id === 'exit' ||
              !reachableFrom(graph, 'start', { avoid: new Set([id]) }).has('exit'),
          )
        : [];
      expect([...dominatorsOf(graph, 'start', 'exit')].sort()).toEqual([...expected].sort());
    }
  });
});
