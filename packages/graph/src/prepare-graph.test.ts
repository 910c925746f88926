import { describe, expect, it } from 'vitest';
import { prepareGraph } from './prepare-graph.js';

describe('prepareGraph (spec §9.1)', () => {
  it('turns a DOT syntax error into one dot_syntax error diagnostic and no graph', () => {
    const result = prepareGraph('digraph G {\n  a -- b\n}', { filename: 'bad.dot' });
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({
      rule: 'dot_syntax',
      severity: 'error',
      span: { start: { line: 2, column: 5 }, filename: 'bad.dot' },
    });
    expect(result.diagnostics[0]!.fix).toBeTruthy();
  });

  it('returns the graph with every diagnostic ordered by position', () => {
    const source =
      'digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  a [timeout=x]\n  start -> a -> exit\n  b\n}';
    const { graph, diagnostics } = prepareGraph(source);
    expect(graph?.nodes.size).toBe(4);
    expect(diagnostics.map((d) => `${d.rule}@${d.span?.start.line}`)).toEqual([
      'prompt_on_llm_nodes@4',
      'attribute_type@4',
      'reachability@6',
      'prompt_on_llm_nodes@6',
      'dead_end@6',
    ]);
  });

  it('runs custom rules and the strict option', () => {
    const source =
      'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; w [llm_prompt="x"]; start -> w -> exit }';
    const noW = {
      name: 'no_w',
      apply: () => [{ rule: 'no_w', severity: 'info' as const, message: 'custom', nodeId: 'w' }],
    };
    const { diagnostics } = prepareGraph(source, { rules: [noW], strict: true });
    expect(diagnostics.map((d) => `${d.rule}:${d.severity}`)).toEqual(['no_w:info', 'dialect_alias:error']);
  });
});
