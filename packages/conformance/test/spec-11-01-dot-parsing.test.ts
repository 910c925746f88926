/** Spec §11.1 DOT Parsing: one test per checkbox, through parseDot / prepareGraph. */
import { parseDot } from '@attractor/dot';
import { describe, expect, it } from 'vitest';
import { graphFrom } from './support/run-dot.js';

describe('§11.1 DOT Parsing', () => {
  it('Parser accepts the supported DOT subset (digraph with graph/node/edge attribute blocks)', () => {
    const source = `digraph Subset {
      graph [goal="g"]
      node [shape=box]
      edge [weight=2]
      rankdir=LR
      start [shape=Mdiamond]
      exit [shape=Msquare]
      work [prompt="do it"]
      start -> work -> exit
    }`;
    const ast = parseDot(source);
    expect(ast.statements.map((statement) => statement.kind)).toEqual([
      'graphAttributes',
      'nodeDefaults',
      'edgeDefaults',
      'attributeDeclaration',
      'node',
      'node',
      'node',
      'edgeChain',
    ]);
    const graph = graphFrom(source);
    expect(graph.id).toBe('Subset');
    expect([...graph.nodes.keys()]).toEqual(['start', 'exit', 'work']);
    expect(graph.edges.map((edge) => `${edge.from}->${edge.to}:${edge.weight}`)).toEqual([
      'start->work:2',
      'work->exit:2',
    ]);
  });

  it('Graph-level attributes (`goal`, `label`, `model_stylesheet`) are extracted correctly', () => {
    const graph = graphFrom(`digraph G {
      graph [goal="Ship the feature", label="Release pipeline"]
      model_stylesheet="* { llm_model: gpt-test; }"
      start [shape=Mdiamond]; exit [shape=Msquare]; work [prompt="x"]
      start -> work -> exit
    }`);
    expect(graph.settings.goal).toBe('Ship the feature');
    expect(graph.settings.label).toBe('Release pipeline');
    expect(graph.settings.modelStylesheet).toBe('* { llm_model: gpt-test; }');
  });

  it('Node attributes are parsed including multi-line attribute blocks (attributes spanning multiple lines within `[...]`)', () => {
    const graph = graphFrom(`digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      review [
        label="Review",
        prompt="Review the change
and list problems",
        max_retries=3,
        goal_gate=true
      ]
      start -> review -> exit
    }`);
    const review = graph.node('review')!;
    expect(review.label).toBe('Review');
    expect(review.prompt).toBe('Review the change\nand list problems');
    expect(review.maxRetries).toBe(3);
    expect(review.goalGate).toBe(true);
  });

  it('Edge attributes (`label`, `condition`, `weight`) are parsed correctly', () => {
    const graph = graphFrom(`digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]
      start -> a
      a -> exit [label="Done", condition="outcome=success", weight=7]
      a -> a [label="Again", condition="outcome=fail"]
    }`);
    const [, done, again] = graph.edges;
    expect(done).toMatchObject({
      from: 'a',
      to: 'exit',
      label: 'Done',
      condition: 'outcome=success',
      weight: 7,
    });
    expect(again).toMatchObject({ from: 'a', to: 'a', label: 'Again', condition: 'outcome=fail', weight: 0 });
  });

  it('Chained edges (`A -> B -> C`) produce individual edges for each pair', () => {
    const graph = graphFrom(`digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]
      A [prompt="a"]; B [prompt="b"]; C [prompt="c"]
      start -> A -> B -> C -> exit [label="next"]
    }`);
    expect(graph.edges.map((edge) => `${edge.from}->${edge.to} ${edge.label}`)).toEqual([
      'start->A next',
      'A->B next',
      'B->C next',
      'C->exit next',
    ]);
  });

  it('Node/edge default blocks (`node [...]`, `edge [...]`) apply to subsequent declarations', () => {
    const graph = graphFrom(`digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]
      before [prompt="b"]
      node [max_retries=2, timeout="30s"]
      edge [weight=5]
      after [prompt="a"]
      override [prompt="o", max_retries=0]
      start -> before -> after -> override -> exit
    }`);
    expect(graph.node('before')!.maxRetries).toBeUndefined();
    expect(graph.node('after')!.maxRetries).toBe(2);
    expect(graph.node('after')!.timeoutMs).toBe(30_000);
    expect(graph.node('override')!.maxRetries).toBe(0);
    expect(graph.edges.map((edge) => edge.weight)).toEqual([5, 5, 5, 5]);
  });

  it('Subgraph blocks are flattened (contents kept, wrapper removed)', () => {
    const graph = graphFrom(`digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]
      subgraph cluster_loop {
        label="Loop"
        node [timeout="10m"]
        plan [prompt="p"]
        build [prompt="b"]
        plan -> build
      }
      start -> plan
      build -> exit
    }`);
    expect([...graph.nodes.keys()].sort()).toEqual(['build', 'exit', 'plan', 'start']);
    expect(graph.edges.map((edge) => `${edge.from}->${edge.to}`)).toEqual([
      'plan->build',
      'start->plan',
      'build->exit',
    ]);
    expect(graph.node('plan')!.timeoutMs).toBe(600_000);
    expect(graph.node('start')!.timeoutMs).toBeUndefined();
    // Spec §2.10: a subgraph label becomes a class of the nodes inside it.
    expect(graph.node('plan')!.classes).toContain('loop');
  });

  it('`class` attribute on nodes merges in attributes from the stylesheet', () => {
    const graph = graphFrom(`digraph G {
      graph [model_stylesheet=".fast { llm_model: fast-model; reasoning_effort: low; }"]
      start [shape=Mdiamond]; exit [shape=Msquare]
      quick [prompt="q", class="fast"]
      slow [prompt="s"]
      start -> quick -> slow -> exit
    }`);
    expect(graph.node('quick')).toMatchObject({
      classes: ['fast'],
      llmModel: 'fast-model',
      reasoningEffort: 'low',
    });
    expect(graph.node('slow')!.llmModel).toBeUndefined();
    expect(graph.node('slow')!.reasoningEffort).toBe('high');
  });

  it('Quoted and unquoted attribute values both work', () => {
    const graph = graphFrom(`digraph G {
      start [shape=Mdiamond]; exit [shape="Msquare"]
      a [prompt="a", max_retries=2, goal_gate=true, label=Alpha]
      b [prompt="b", max_retries="2", goal_gate="true", label="Alpha"]
      start -> a -> b -> exit
    }`);
    const pick = (id: string) => {
      const node = graph.node(id)!;
      return { maxRetries: node.maxRetries, goalGate: node.goalGate, label: node.label };
    };
    expect(pick('a')).toEqual({ maxRetries: 2, goalGate: true, label: 'Alpha' });
    expect(pick('b')).toEqual(pick('a'));
    expect(graph.node('exit')!.shape).toBe('Msquare');
  });

  it('Comments (`//` and `/* */`) are stripped before parsing', () => {
    const graph = graphFrom(`// a pipeline
    /* block comment { with a brace */
    digraph G {
      start [shape=Mdiamond] // trailing comment
      exit [shape=Msquare]
      /* work [prompt="commented out"] */
      a [prompt="keep // this is string content", /* inside a list */ label="A"]
      start -> a -> exit
    }`);
    expect([...graph.nodes.keys()]).toEqual(['start', 'exit', 'a']);
    expect(graph.node('a')!.prompt).toBe('keep // this is string content');
    expect(graph.node('a')!.label).toBe('A');
  });
});
