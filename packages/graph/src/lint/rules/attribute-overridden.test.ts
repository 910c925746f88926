import { describe, expect, it } from 'vitest';
import { diagnosticsOf, lintRule } from '../../../test/lint-summary.js';
import { prepareGraph } from '../../prepare-graph.js';

function pipeline(body: string): string {
  return `digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n${body}\n}`;
}

describe('attribute_overridden', () => {
  it('warns at the later key of a node declared twice with a different prompt, naming both lines', () => {
    const source = pipeline(
      '  plan [prompt="Write a plan"]\n  start -> plan -> exit\n  plan [prompt="Totally different prompt"]',
    );
    expect(lintRule(source, 'attribute_overridden')).toEqual(['warning 6:9 plan']);
    expect(diagnosticsOf(source, 'attribute_overridden')[0]).toMatchObject({
      message:
        'Node "plan" sets prompt at line 6, replacing a different value set at line 4; only the value at line 6 is used.',
      fix: 'Remove one of the two prompt values, or merge them into one statement.',
      span: { filename: 'test.dot' },
    });
    // The later value still wins (spec §2).
    const { graph } = prepareGraph(source, { filename: 'test.dot' });
    expect(graph?.nodes.get('plan')?.prompt).toBe('Totally different prompt');
    expect(graph?.nodes.get('plan')?.attributes.prompt?.replaced?.value).toBe('Write a plan');
  });

  it('warns about a graph attribute set twice, also across the two statement forms', () => {
    const source = pipeline('  goal="Ship it"\n  graph [goal="Ship something else"]\n  start -> exit');
    expect(lintRule(source, 'attribute_overridden')).toEqual(['warning 5:10']);
    expect(diagnosticsOf(source, 'attribute_overridden')[0]?.message).toBe(
      'Graph "G" sets goal at line 5, replacing a different value set at line 4; only the value at line 5 is used.',
    );
  });

  it('reports each replacement of a key set three times, in source order, and a key twice in one statement', () => {
    const source = pipeline(
      '  w [prompt="a", timeout="1m", timeout="2m"]\n  w [prompt="b"]\n  w [prompt="c"]\n  start -> w -> exit',
    );
    expect(lintRule(source, 'attribute_overridden')).toEqual([
      'warning 4:32 w',
      'warning 5:6 w',
      'warning 6:6 w',
    ]);
    const messages = diagnosticsOf(source, 'attribute_overridden').map((diagnostic) => diagnostic.message);
    expect(messages[1]).toContain('sets prompt at line 5, replacing a different value set at line 4;');
    expect(messages[2]).toContain('sets prompt at line 6, replacing a different value set at line 5;');
  });

  it('names a dialect alias as written', () => {
    const source = pipeline('  w [llm_prompt="a"]\n  w [prompt="b"]\n  start -> w -> exit');
    expect(diagnosticsOf(source, 'attribute_overridden')[0]?.message).toBe(
      'Node "w" sets prompt at line 5, replacing a different value set at line 4 (as llm_prompt); only the value at line 5 is used.',
    );
  });

  it('does not report a default replaced by an explicit value, the same value twice, or another key', () => {
    const source = pipeline(
      [
        '  node [timeout="5m"]',
        '  w [timeout="10m", prompt="a"]',
        '  w [prompt="a", label="W"]',
        '  goal="g"',
        '  goal="g"',
        '  subgraph cluster_x { node [timeout="1m"]; w }',
        '  start -> w -> exit',
      ].join('\n'),
    );
    expect(lintRule(source, 'attribute_overridden')).toEqual([]);
    const { graph } = prepareGraph(source, { filename: 'test.dot' });
    expect(graph?.nodes.get('w')?.attributes.timeout?.replaced).toBeUndefined();
    expect(graph?.nodes.get('w')?.attributes.prompt?.replaced).toBeUndefined();
  });
});
