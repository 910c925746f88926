import { parseDot, parseDotIncrementally } from '@attractor/dot';
import { describe, expect, it } from 'vitest';
import { buildGraph, deriveClassName } from './build-graph.js';

function build(source: string) {
  return buildGraph(parseDot(source, { filename: 'g.dot' }), { source });
}

describe('buildGraph (spec §2.9-§2.12)', () => {
  it('keeps attributes named after Object.prototype members as plain attributes (constructor, toString, __proto__)', () => {
    const graph = build(`digraph G {
  node [toString="from defaults"]
  edge [constructor="edge default"]
  a [prompt="x", constructor="y", __proto__="w"]
  b
  a -> b [__proto__="e"]
}`);
    const a = graph.nodes.get('a')!;
    expect(Object.getPrototypeOf(a.attributes)).toBe(Object.prototype);
    expect(Object.keys(a.attributes).sort()).toEqual(['__proto__', 'constructor', 'prompt', 'toString']);
    const own = (record: object, key: string): unknown => Object.getOwnPropertyDescriptor(record, key)?.value;
    expect(own(a.attributes, 'constructor')).toMatchObject({
      key: 'constructor',
      value: 'y',
      origin: 'explicit',
    });
    expect(own(a.attributes, 'constructor')).not.toHaveProperty('writtenKey');
    expect(Object.getOwnPropertyDescriptor(a.attributes, '__proto__')?.value).toMatchObject({ value: 'w' });
    expect(graph.nodes.get('b')!.attributes.toString).toMatchObject({
      value: 'from defaults',
      origin: 'default',
    });
    const [edge] = graph.edges;
    expect(Object.keys(edge!.attributes).sort()).toEqual(['__proto__', 'constructor']);
    expect(own(edge!.attributes, 'constructor')).toMatchObject({ value: 'edge default', origin: 'default' });
  });

  it('expands a chain into one edge per consecutive pair, each with the chain attributes', () => {
    const graph = build('digraph G { A -> B -> C [label="next", weight=2] }');
    expect(graph.edges.map((edge) => [edge.from, edge.to, edge.label, edge.weight, edge.index])).toEqual([
      ['A', 'B', 'next', 2, 0],
      ['B', 'C', 'next', 2, 1],
    ]);
  });

  it('gives each chain edge the span from its source id to its target id', () => {
    const graph = build('digraph G {\n  A -> B -> C\n}');
    expect(graph.edges.map((edge) => [edge.span?.start.column, edge.span?.end.column])).toEqual([
      [3, 9],
      [8, 14],
    ]);
    expect(graph.edges[1]?.span?.filename).toBe('g.dot');
  });

  it('puts the filename option on the spans of an AST parsed without one, keeping their positions', () => {
    const source = 'digraph G {\n  A [label="x"]\n  A -> B\n}';
    const graph = buildGraph(parseDot(source), { source, filename: 'named.dot' });
    const label = graph.node('A')?.attributes.label;
    expect(label?.valueSpan).toEqual({
      start: { offset: 23, line: 2, column: 12 },
      end: { offset: 26, line: 2, column: 15 },
      filename: 'named.dot',
    });
    expect(graph.node('A')?.idSpan?.start).toEqual({ offset: 14, line: 2, column: 3 });
    expect(JSON.parse(JSON.stringify(graph.edges[0]?.span))).toEqual({
      start: { offset: 30, line: 3, column: 3 },
      end: { offset: 36, line: 3, column: 9 },
      filename: 'named.dot',
    });
  });

  it('builds the same graph from the statement stream of parseDotIncrementally', () => {
    const source = `digraph G {\n  node [shape=box]\n${Array.from({ length: 200 }, (_, index) => `  n${index} [label="N ${index}"]\n  n${index} -> n${index + 1}`).join('\n')}\n  subgraph cluster_a { label="Loop A"; inner }\n}`;
    const streamed = buildGraph(parseDotIncrementally(source, { filename: 'g.dot' }), { source });
    const whole = build(source);
    expect(streamed.nodes.size).toBe(202);
    expect(JSON.stringify([...streamed.nodes.values()])).toBe(JSON.stringify([...whole.nodes.values()]));
    expect(JSON.stringify(streamed.edges)).toBe(JSON.stringify(whole.edges));
    expect(streamed.node('inner')?.classes).toEqual(['loop-a']);
  });

  it('applies node defaults to later nodes only and lets explicit attributes win', () => {
    const graph = build(`digraph G {
      early
      node [shape=box, timeout="900s"]
      plan
      implement [timeout="1800s"]
    }`);
    expect(graph.node('early')?.timeoutMs).toBeUndefined();
    expect(graph.node('plan')?.timeoutMs).toBe(900_000);
    expect(graph.node('plan')?.attributes.timeout?.origin).toBe('default');
    expect(graph.node('implement')?.timeoutMs).toBe(1_800_000);
    expect(graph.node('implement')?.attributes.timeout?.origin).toBe('explicit');
  });

  it('scopes subgraph defaults to the subgraph and nests them (spec §2.10 example)', () => {
    const graph = build(`digraph G {
      node [fidelity=compact]
      subgraph cluster_loop {
        label = "Loop A"
        node [thread_id="loop-a", timeout="900s"]
        Plan      [label="Plan next step"]
        Implement [label="Implement", timeout="1800s"]
        subgraph inner { node [timeout="5m"]; Deep }
        After
      }
      Outside
    }`);
    expect(graph.node('Plan')).toMatchObject({ threadId: 'loop-a', timeoutMs: 900_000, fidelity: 'compact' });
    expect(graph.node('Implement')).toMatchObject({ threadId: 'loop-a', timeoutMs: 1_800_000 });
    expect(graph.node('Deep')).toMatchObject({ threadId: 'loop-a', timeoutMs: 300_000 });
    expect(graph.node('After')?.timeoutMs).toBe(900_000);
    expect(graph.node('Outside')?.threadId).toBeUndefined();
    expect(graph.node('Outside')?.fidelity).toBe('compact');
  });

  it('creates a node first mentioned in an edge with the defaults in force there', () => {
    const graph = build(`digraph G {
      node [shape=parallelogram]
      a -> b
      node [shape=box]
      b [label="B"]
    }`);
    expect(graph.node('a')?.shape).toBe('parallelogram');
    // A later node statement fills in the defaults in force at that statement.
    expect(graph.node('b')).toMatchObject({ shape: 'box', label: 'B' });
  });

  it('merges repeated node statements, later explicit values winning', () => {
    const graph = build(`digraph G {
      plan [label="Plan", prompt="first"]
      plan [prompt="second", goal_gate=true]
    }`);
    expect(graph.node('plan')).toMatchObject({ label: 'Plan', prompt: 'second', goalGate: true });
    expect(graph.nodes.size).toBe(1);
    expect(graph.node('plan')?.idSpan?.start.line).toBe(2);
  });

  it('derives classes from subgraph labels and appends them to the class list (spec §2.10, §2.12)', () => {
    const graph = build(`digraph G {
      subgraph cluster_a {
        label = "Loop A!"
        review [class="code, critical"]
        subgraph cluster_b { graph [label="Fast Path"]; quick }
      }
      top [class="code"]
    }`);
    expect(graph.node('review')?.classes).toEqual(['code', 'critical', 'loop-a']);
    expect(graph.node('quick')?.classes).toEqual(['loop-a', 'fast-path']);
    expect(graph.node('quick')?.subgraphClasses).toEqual(['loop-a', 'fast-path']);
    expect(graph.node('top')?.classes).toEqual(['code']);
  });

  it('stores dialect aliases under the canonical key with the written key', () => {
    const graph = build(`digraph G {
      context_fidelity_default="truncate"
      default_max_retry=3
      work [llm_prompt="Do it", node_type="tool"]
    }`);
    expect(graph.node('work')).toMatchObject({ prompt: 'Do it', type: 'tool' });
    expect(graph.node('work')?.attributes.prompt).toMatchObject({ key: 'prompt', writtenKey: 'llm_prompt' });
    expect(graph.settings).toMatchObject({ defaultFidelity: 'truncate', defaultMaxRetries: 3 });
  });

  it('reads graph attributes from graph blocks and top-level declarations, not from subgraphs', () => {
    const graph = build(`digraph G {
      graph [goal="Ship it", max_steps=50]
      label = "Pipeline"
      subgraph cluster_x { label = "Inner"; goal = "not the goal" }
    }`);
    expect(graph.settings).toMatchObject({
      goal: 'Ship it',
      label: 'Pipeline',
      maxSteps: 50,
      maxNodeVisits: 25,
    });
  });

  it('defaults max_steps to 1000, or 10 per node in a bigger graph, so that size alone never needs the flag', () => {
    const chain = (count: number, graphAttributes = '') => {
      const ids = Array.from({ length: count }, (_, index) => `s${index}`);
      return build(`digraph G {
        ${graphAttributes}
        start [shape=Mdiamond]
        exit [shape=Msquare]
        start -> ${ids.join(' -> ')} -> exit
      }`);
    };
    expect(chain(5).settings.maxSteps).toBe(1000);
    expect(chain(98).settings.maxSteps).toBe(1000);
    expect(chain(1000).settings.maxSteps).toBe(10_020);
    expect(chain(1000, 'max_steps=40').settings.maxSteps).toBe(40);
  });

  it('types values and leaves malformed ones undefined instead of throwing', () => {
    const graph = build(
      'digraph G { a [max_retries=three, timeout="2h", goal_gate=yes, allow_partial=true] }',
    );
    expect(graph.node('a')).toMatchObject({ timeoutMs: 7_200_000, goalGate: false, allowPartial: true });
    expect(graph.node('a')?.maxRetries).toBeUndefined();
    expect(graph.node('a')?.attributes.max_retries?.value).toBe('three');
  });

  it('applies edge defaults within their scope', () => {
    const graph = build(`digraph G {
      edge [weight=5]
      a -> b
      subgraph s { edge [fidelity=full]; b -> c [weight=1] }
      c -> d
    }`);
    expect(graph.edges.map((edge) => [edge.weight, edge.fidelity])).toEqual([
      [5, undefined],
      [1, 'full'],
      [5, undefined],
    ]);
  });
});

describe('deriveClassName (spec §2.10)', () => {
  it.each([
    ['Loop A', 'loop-a'],
    ['  Code Review (fast) ', 'code-review-fast'],
    ['Stage_2: Build', 'stage2-build'],
  ])('derives %j as %j', (label, expected) => {
    expect(deriveClassName(label)).toBe(expected);
  });
});
