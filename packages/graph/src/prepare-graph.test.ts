import { createDotParseCache } from '@attractor/dot';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../test/read-fixture.js';
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

  it('reports a syntax error far into a large file the same way (statements are built as they are parsed)', () => {
    const body = Array.from({ length: 400 }, (_, index) => `  n${index} [label="Node ${index}"]`).join('\n');
    const result = prepareGraph(`digraph G {\n${body}\n  late [label=]\n}`, { filename: 'late.dot' });
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics).toEqual([
      {
        rule: 'dot_syntax',
        severity: 'error',
        message: expect.stringContaining('Unexpected "]"'),
        fix: expect.any(String),
        span: {
          start: { offset: expect.any(Number), line: 402, column: 15 },
          end: expect.objectContaining({ line: 402 }),
          filename: 'late.dot',
        },
      },
    ]);
  });

  it('gives the same graph and diagnostics with a parse cache, for each version of an edited file', () => {
    const stages = (count: number, broken: number) =>
      Array.from({ length: count }, (_, index) =>
        index === broken
          ? `  s${index} [label="Stage ${index}", max_retries=two]`
          : `  s${index} [label="Stage ${index}", prompt="Do $goal ${index}"]`,
      ).join('\n');
    const version = (broken: number) =>
      `digraph G {\n  graph [goal="ship"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n${stages(120, broken)}\n  start -> s0\n  s119 -> exit\n}\n`;
    const parseCache = createDotParseCache();
    for (const broken of [3, 60, 60, 119]) {
      const source = version(broken);
      const cached = prepareGraph(source, { filename: 'edited.dot', parseCache });
      const fresh = prepareGraph(source, { filename: 'edited.dot' });
      expect(JSON.stringify(cached.diagnostics)).toBe(JSON.stringify(fresh.diagnostics));
      expect(cached.graph?.node(`s${broken}`)?.attributes.max_retries?.value).toBe('two');
      expect(cached.diagnostics.find((d) => d.rule === 'attribute_type')?.span?.start.line).toBe(broken + 5);
    }
    expect(parseCache.stats.hits).toBeGreaterThan(0);
  });

  it('gives diagnostics plain spans that survive structuredClone and a spread', () => {
    const source =
      'digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  a [timeout=x]\n  start -> a -> exit\n}';
    const { diagnostics } = prepareGraph(source, { filename: 'p.dot' });
    const typed = diagnostics.find((diagnostic) => diagnostic.rule === 'attribute_type');
    expect(typed?.span).toEqual({
      start: { offset: 73, line: 4, column: 14 },
      end: { offset: 74, line: 4, column: 15 },
      filename: 'p.dot',
    });
    for (const diagnostic of diagnostics) {
      expect(structuredClone(diagnostic)).toEqual(diagnostic);
      expect({ ...diagnostic.span }).toEqual(diagnostic.span);
    }
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

describe('prepareGraph on pipelines written for other runners (docs/architecture.md "Dialect")', () => {
  const source = readFixture('other-runner-dialect.dot');

  it('reads aliases as canonical keys and unitless durations as seconds', () => {
    const graph = prepareGraph(source).graph!;
    expect(graph.startNode?.id).toBe('Start');
    expect(graph.exitNode?.id).toBe('Exit');
    expect(graph.settings).toMatchObject({ defaultThread: 'main', defaultMaxRetries: 2 });
    expect(graph.node('Work')).toMatchObject({ prompt: 'Do the work', timeoutMs: 300_000 });
  });

  it('reads default_thread_id, a graph attribute other runners document, as default_thread (issue 33)', () => {
    const { graph, diagnostics } = prepareGraph(
      'digraph G {\n  graph [default_thread_id="feature-build"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n}',
    );
    expect(graph?.settings.defaultThread).toBe('feature-build');
    expect(
      diagnostics.map((d) => `${d.rule} ${d.span?.start.line}:${d.span?.start.column} ${d.fix}`),
    ).toEqual(['dialect_alias 2:10 Rename default_thread_id to default_thread.']);
  });

  it('reports each foreign name with the fix', () => {
    const { diagnostics } = prepareGraph(source, { filename: 'dialect.dot' });
    expect(
      diagnostics.map((d) => `${d.rule} ${d.span?.start.line}:${d.span?.start.column} ${d.fix}`),
    ).toEqual([
      'dialect_alias 3:3 Rename context_thread_default to default_thread.',
      'dialect_alias 4:3 Rename default_max_retry to default_max_retries.',
      'dialect_alias 5:10 Rename node_type to type.',
      'dialect_alias 6:10 Rename llm_prompt to prompt.',
      'duration_unit 6:44 Write timeout="300s" (units: ms, s, m, h, d).',
      'dialect_alias 7:31 Rename script to tool_command.',
      'unknown_attribute 8:25 Rename default_choice to human.default_choice.',
      'dialect_alias 9:10 Rename node_type to type.',
    ]);
  });
});
