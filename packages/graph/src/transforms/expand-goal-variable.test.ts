import { parseDot } from '@attractor/dot';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../build-graph.js';
import type { Graph } from '../graph.js';
import { prepareGraph } from '../prepare-graph.js';
import { expandGoalVariableTransform } from './expand-goal-variable.js';
import type { Transform } from './transform.js';

describe('expandGoalVariableTransform (spec §9.2)', () => {
  const source =
    'digraph G { goal="Ship v2"; plan [prompt="Plan $goal, then $goal again"]; other [prompt="No vars"] }';

  it('replaces every $goal in prompts and returns a new graph', () => {
    const graph = buildGraph(parseDot(source));
    const expanded = expandGoalVariableTransform.apply(graph);
    expect(expanded.node('plan')!.prompt).toBe('Plan Ship v2, then Ship v2 again');
    expect(expanded.node('other')!.prompt).toBe('No vars');
    expect(expanded).not.toBe(graph);
    expect(graph.node('plan')!.prompt).toBe('Plan $goal, then $goal again');
  });

  it('keeps the written prompt attribute so its span stays exact', () => {
    const expanded = prepareGraph(source).graph!;
    expect(expanded.node('plan')!.attributes.prompt!.value).toBe('Plan $goal, then $goal again');
  });
});

describe('custom transforms (spec §9.3)', () => {
  function tagging(name: string): Transform {
    return {
      name,
      apply: (graph: Graph) =>
        graph.with({
          nodes: [...graph.nodes.values()].map((node) => ({ ...node, prompt: `${node.prompt}|${name}` })),
        }),
    };
  }

  it('run after the built-ins, in registration order', () => {
    const { graph } = prepareGraph('digraph G { goal="g"; a [prompt="$goal"] }', {
      transforms: [tagging('first'), tagging('second')],
    });
    // $goal was already expanded when the custom transforms ran.
    expect(graph!.node('a')!.prompt).toBe('g|first|second');
  });

  it('are validated after transformation', () => {
    const addOrphan: Transform = {
      name: 'add_orphan',
      apply: (graph) =>
        graph.with({
          nodes: [
            ...graph.nodes.values(),
            { ...graph.node('work')!, id: 'orphan', span: undefined, idSpan: undefined },
          ],
        }),
    };
    const source =
      'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; work [prompt="w"]; start -> work -> exit }';
    const { diagnostics } = prepareGraph(source, { transforms: [addOrphan] });
    expect(diagnostics.filter((d) => d.rule === 'reachability').map((d) => d.nodeId)).toEqual(['orphan']);
  });
});
