import { describe, expect, it } from 'vitest';
import { readFixture } from '../test/read-fixture.js';
import { summarize } from '../test/summarize.js';
import type { DotAttribute, DotStatement } from './dot-ast.js';
import { parseDot, parseDotWithoutChunks } from './parse-dot.js';

function only<T>(items: readonly T[]): T {
  expect(items).toHaveLength(1);
  return items[0]!;
}

function attributesOf(statement: DotStatement): readonly DotAttribute[] {
  if (statement.kind === 'attributeDeclaration' || statement.kind === 'subgraph') {
    throw new Error(`statement ${statement.kind} has no attribute list`);
  }
  return statement.attributes;
}

function parseBody(body: string) {
  return parseDot(`digraph G {\n${body}\n}`).statements;
}

describe('parseDot: spec examples (spec §2.13, §8.6, §11.13)', () => {
  it('parses the simple linear workflow', () => {
    const ast = parseDot(readFixture('spec-simple.dot'));
    expect(ast.id.name).toBe('Simple');
    expect(summarize(ast.statements)).toEqual([
      { kind: 'graphAttributes', attributes: { goal: 'Run tests and report' } },
      { kind: 'attributeDeclaration', key: 'rankdir', value: 'LR' },
      { kind: 'node', id: 'start', attributes: { shape: 'Mdiamond', label: 'Start' } },
      { kind: 'node', id: 'exit', attributes: { shape: 'Msquare', label: 'Exit' } },
      {
        kind: 'node',
        id: 'run_tests',
        attributes: { label: 'Run Tests', prompt: 'Run the test suite and report results' },
      },
      { kind: 'node', id: 'report', attributes: { label: 'Report', prompt: 'Summarize the test results' } },
      { kind: 'edgeChain', nodes: ['start', 'run_tests', 'report', 'exit'], attributes: {} },
    ]);
  });

  it('parses the branching workflow with defaults and conditions', () => {
    const ast = parseDot(readFixture('spec-branch.dot'));
    expect(ast.id.name).toBe('Branch');
    const summary = summarize(ast.statements);
    expect(summary.slice(0, 3)).toEqual([
      { kind: 'graphAttributes', attributes: { goal: 'Implement and validate a feature' } },
      { kind: 'attributeDeclaration', key: 'rankdir', value: 'LR' },
      { kind: 'nodeDefaults', attributes: { shape: 'box', timeout: '900s' } },
    ]);
    expect(summary.filter((statement) => statement.kind === 'node').map((node) => node.id)).toEqual([
      'start',
      'exit',
      'plan',
      'implement',
      'validate',
      'gate',
    ]);
    expect(summary.slice(-3)).toEqual([
      { kind: 'edgeChain', nodes: ['start', 'plan', 'implement', 'validate', 'gate'], attributes: {} },
      {
        kind: 'edgeChain',
        nodes: ['gate', 'exit'],
        attributes: { label: 'Yes', condition: 'outcome=success' },
      },
      {
        kind: 'edgeChain',
        nodes: ['gate', 'implement'],
        attributes: { label: 'No', condition: 'outcome!=success' },
      },
    ]);
  });

  it('parses the human gate example with a multi-line attribute block', () => {
    const ast = parseDot(readFixture('spec-human-gate.dot'));
    const summary = summarize(ast.statements);
    expect(summary[3]).toEqual({
      kind: 'node',
      id: 'review_gate',
      attributes: { shape: 'hexagon', label: 'Review Changes', type: 'wait.human' },
    });
    expect(summary.slice(4)).toEqual([
      { kind: 'edgeChain', nodes: ['start', 'review_gate'], attributes: {} },
      { kind: 'edgeChain', nodes: ['review_gate', 'ship_it'], attributes: { label: '[A] Approve' } },
      { kind: 'edgeChain', nodes: ['review_gate', 'fixes'], attributes: { label: '[F] Fix' } },
      { kind: 'edgeChain', nodes: ['ship_it', 'exit'], attributes: {} },
      { kind: 'edgeChain', nodes: ['fixes', 'review_gate'], attributes: {} },
    ]);
  });

  it('keeps a multi-line stylesheet whose lines start with "#" as string content', () => {
    const ast = parseDot(readFixture('spec-stylesheet.dot'));
    const graphAttributes = ast.statements[0]!;
    const stylesheet = attributesOf(graphAttributes).find(
      (attribute) => attribute.key === 'model_stylesheet',
    );
    expect(stylesheet?.value.value).toContain(
      '\n            #critical_review { llm_model: gpt-5.2; llm_provider: openai; reasoning_effort: high; }\n',
    );
    expect(summarize(ast.statements).at(-1)).toEqual({
      kind: 'edgeChain',
      nodes: ['start', 'plan', 'implement', 'critical_review', 'exit'],
      attributes: {},
    });
  });

  it('parses the integration smoke test pipeline', () => {
    const ast = parseDot(readFixture('spec-smoke-test.dot'));
    expect(ast.id.name).toBe('test_pipeline');
    const implement = ast.statements.find(
      (statement) => statement.kind === 'node' && statement.id.name === 'implement',
    );
    expect(
      implement && attributesOf(implement).map((attribute) => [attribute.key, attribute.value.kind]),
    ).toEqual([
      ['shape', 'bare'],
      ['prompt', 'string'],
      ['goal_gate', 'boolean'],
    ]);
    expect(summarize(ast.statements).filter((statement) => statement.kind === 'edgeChain')).toHaveLength(6);
  });

  it('parses the subgraph example of §2.10 with its scoped defaults', () => {
    const statements = parseBody(`subgraph cluster_loop {
    label = "Loop A"
    node [thread_id="loop-a", timeout="900s"]

    Plan      [label="Plan next step"]
    Implement [label="Implement", timeout="1800s"]
}`);
    expect(summarize(statements)).toEqual([
      {
        kind: 'subgraph',
        id: 'cluster_loop',
        statements: [
          { kind: 'attributeDeclaration', key: 'label', value: 'Loop A' },
          { kind: 'nodeDefaults', attributes: { thread_id: 'loop-a', timeout: '900s' } },
          { kind: 'node', id: 'Plan', attributes: { label: 'Plan next step' } },
          { kind: 'node', id: 'Implement', attributes: { label: 'Implement', timeout: '1800s' } },
        ],
      },
    ]);
  });

  it('parses every edge of the condition examples of §10.6', () => {
    const statements = parseBody(`plan -> implement [condition="outcome=success"]
plan -> fix [condition="outcome=fail"]
validate -> deploy [condition="outcome=success && context.tests_passed=true"]
review -> iterate [condition="context.loop_state!=exhausted"]
gate -> fix [condition="preferred_label=Fix"]`);
    expect(summarize(statements)).toEqual([
      { kind: 'edgeChain', nodes: ['plan', 'implement'], attributes: { condition: 'outcome=success' } },
      { kind: 'edgeChain', nodes: ['plan', 'fix'], attributes: { condition: 'outcome=fail' } },
      {
        kind: 'edgeChain',
        nodes: ['validate', 'deploy'],
        attributes: { condition: 'outcome=success && context.tests_passed=true' },
      },
      {
        kind: 'edgeChain',
        nodes: ['review', 'iterate'],
        attributes: { condition: 'context.loop_state!=exhausted' },
      },
      { kind: 'edgeChain', nodes: ['gate', 'fix'], attributes: { condition: 'preferred_label=Fix' } },
    ]);
  });

  it('parses the snippets of §2.9, §2.11, §2.12 and §4.12', () => {
    const statements = parseBody(`A -> B -> C [label="next"]
node [shape=box, timeout="900s"]
edge [weight=0]
review_code [shape=box, class="code,critical", prompt="Review the code"]
my_node [type="my_custom_type", shape=box, custom_attr="value"]`);
    expect(summarize(statements)).toEqual([
      { kind: 'edgeChain', nodes: ['A', 'B', 'C'], attributes: { label: 'next' } },
      { kind: 'nodeDefaults', attributes: { shape: 'box', timeout: '900s' } },
      { kind: 'edgeDefaults', attributes: { weight: '0' } },
      {
        kind: 'node',
        id: 'review_code',
        attributes: { shape: 'box', class: 'code,critical', prompt: 'Review the code' },
      },
      {
        kind: 'node',
        id: 'my_node',
        attributes: { type: 'my_custom_type', shape: 'box', custom_attr: 'value' },
      },
    ]);
  });
});

describe('parseDot: constructs (spec §2.2, docs/architecture.md "Parsing")', () => {
  it('accepts ";", "," and whitespace between attributes, and merges several [..][..] blocks', () => {
    const node = only(parseBody('a [x=1; y=2, z=3 w=4] [v=5][u=6];'));
    expect(node.kind).toBe('node');
    expect(attributesOf(node).map((attribute) => `${attribute.key}=${attribute.value.value}`)).toEqual([
      'x=1',
      'y=2',
      'z=3',
      'w=4',
      'v=5',
      'u=6',
    ]);
  });

  it('reads keywords in any case', () => {
    const statements = parseDot(
      'DiGraph G { NODE [shape=box] Edge [weight=1] GRAPH [goal="g"] SubGraph s { a } }',
    ).statements;
    expect(statements.map((statement) => statement.kind)).toEqual([
      'nodeDefaults',
      'edgeDefaults',
      'graphAttributes',
      'subgraph',
    ]);
  });

  it('parses named, anonymous and nested subgraphs', () => {
    const statements = parseBody('subgraph outer { subgraph inner { a -> b } { c } subgraph { d } }');
    expect(summarize(statements)).toEqual([
      {
        kind: 'subgraph',
        id: 'outer',
        statements: [
          {
            kind: 'subgraph',
            id: 'inner',
            statements: [{ kind: 'edgeChain', nodes: ['a', 'b'], attributes: {} }],
          },
          { kind: 'subgraph', statements: [{ kind: 'node', id: 'c', attributes: {} }] },
          { kind: 'subgraph', statements: [{ kind: 'node', id: 'd', attributes: {} }] },
        ],
      },
    ]);
  });

  it('reads bare dotted keys and quoted keys', () => {
    const statements = parseBody(
      'gate [human.default_choice=approve, "odd key"=1]\nstack.child_workflow = "child.dot"',
    );
    expect(attributesOf(statements[0]!).map((attribute) => attribute.key)).toEqual([
      'human.default_choice',
      'odd key',
    ]);
    expect(summarize([statements[1]!])).toEqual([
      { kind: 'attributeDeclaration', key: 'stack.child_workflow', value: 'child.dot' },
    ]);
  });

  it('classifies every value kind and keeps raw and decoded text', () => {
    const node = only(
      parseBody(
        'n [s="text", i=42, neg=-1, f=0.5, g=-3.14, h=.5, b=true, c=false, d=900s, e=250ms, x=LR, y=gpt-5.2]',
      ),
    );
    expect(
      attributesOf(node).map((attribute) => [attribute.key, attribute.value.kind, attribute.value.raw]),
    ).toEqual([
      ['s', 'string', '"text"'],
      ['i', 'integer', '42'],
      ['neg', 'integer', '-1'],
      ['f', 'float', '0.5'],
      ['g', 'float', '-3.14'],
      ['h', 'float', '.5'],
      ['b', 'boolean', 'true'],
      ['c', 'boolean', 'false'],
      ['d', 'duration', '900s'],
      ['e', 'duration', '250ms'],
      ['x', 'bare', 'LR'],
      ['y', 'bare', 'gpt-5.2'],
    ]);
    expect(attributesOf(node)[0]!.value.value).toBe('text');
  });

  it('joins "+" concatenations across lines and comments, keeping the raw text as written', () => {
    const node = only(parseBody('n [prompt="Hello, " +\n  /* greet */ "world" + "!"]'));
    const value = attributesOf(node)[0]!.value;
    expect(value).toMatchObject({
      kind: 'string',
      value: 'Hello, world!',
      raw: '"Hello, " +\n  /* greet */ "world" + "!"',
    });
  });

  it('decodes the escapes \\" \\\\ \\n \\t, joins \\-newline lines and keeps other escapes', () => {
    const node = only(parseBody('n [p="say \\"hi\\"\\\\ok\\nnext\\tcol \\l \\d+ one\\\ntwo"]'));
    expect(attributesOf(node)[0]!.value.value).toBe('say "hi"\\ok\nnext\tcol \\l \\d+ onetwo');
  });

  it('skips comments anywhere, also before digraph, inside attribute lists and containing "{"', () => {
    const ast = parseDot(readFixture('multi-line-attributes.dot'));
    expect(ast.id.name).toBe('MultiLine');
    expect(summarize(ast.statements)).toEqual([
      {
        kind: 'graphAttributes',
        attributes: { goal: 'Ship the feature', label: 'Multi-line', default_max_retries: '2' },
      },
      {
        kind: 'node',
        id: 'review_gate',
        attributes: {
          shape: 'hexagon',
          label: 'Review',
          'human.default_choice': 'approve',
          'quoted key': 'quoted and concatenated',
          timeout: '15m',
        },
      },
      { kind: 'node', id: 'approve', attributes: { label: 'Approve' } },
    ]);
  });

  it('ignores "#" preprocessor lines outside strings but keeps "##" lines inside a quoted prompt', () => {
    const ast = parseDot(
      '# 1 "generated.dot"\ndigraph G {\n# line 3\n  a [prompt="\n## Role\nYou review.\n"]\n}\n',
    );
    expect(attributesOf(only(ast.statements))[0]!.value.value).toBe('\n## Role\nYou review.\n');
  });

  it('accepts optional semicolons, statements on one line and an empty graph', () => {
    expect(summarize(parseBody('a; b -> c; x = 1; d'))).toEqual([
      { kind: 'node', id: 'a', attributes: {} },
      { kind: 'edgeChain', nodes: ['b', 'c'], attributes: {} },
      { kind: 'attributeDeclaration', key: 'x', value: '1' },
      { kind: 'node', id: 'd', attributes: {} },
    ]);
    expect(parseDot('digraph Empty {}').statements).toEqual([]);
  });

  it('continues an edge chain on the next line', () => {
    expect(summarize(parseBody('a\n  -> b\n  -> c\n  [label="x"]\nd'))).toEqual([
      { kind: 'edgeChain', nodes: ['a', 'b', 'c'], attributes: { label: 'x' } },
      { kind: 'node', id: 'd', attributes: {} },
    ]);
  });

  it('accepts a byte-order mark and CRLF line ends', () => {
    const ast = parseDot('\uFEFFdigraph G {\r\n  a -> b\r\n  c [label="x"]\r\n}\r\n');
    expect(summarize(ast.statements)).toEqual([
      { kind: 'edgeChain', nodes: ['a', 'b'], attributes: {} },
      { kind: 'node', id: 'c', attributes: { label: 'x' } },
    ]);
    expect(ast.statements[1]!.span.start).toEqual({ offset: 26, line: 3, column: 3 });
  });
});

describe('parseDot: source spans', () => {
  const source = 'digraph Spans {\n  plan [label="Plan", max_retries=3]\n  plan -> done [weight=2]\n}\n';

  it('records the span of the graph, its id and every statement', () => {
    const ast = parseDot(source, { filename: 'spans.dot' });
    expect(ast.filename).toBe('spans.dot');
    // AST spans work out their positions when read; JSON gives the plain span.
    expect(JSON.parse(JSON.stringify(ast.span))).toEqual({
      start: { offset: 0, line: 1, column: 1 },
      end: { offset: 80, line: 4, column: 2 },
      filename: 'spans.dot',
    });
    expect(ast.span.filename).toBe('spans.dot');
    expect(ast.id.span.start).toEqual({ offset: 8, line: 1, column: 9 });
    const [node, edge] = ast.statements;
    expect(node!.span.start).toEqual({ offset: 18, line: 2, column: 3 });
    expect(node!.span.end).toEqual({ offset: 52, line: 2, column: 37 });
    expect(edge!.span.start).toEqual({ offset: 55, line: 3, column: 3 });
  });

  it('records the spans of node ids, keys and values', () => {
    const [node, edge] = parseDot(source).statements;
    if (node?.kind !== 'node' || edge?.kind !== 'edgeChain') throw new Error('unexpected statements');
    expect(node.id.span.start).toMatchObject({ line: 2, column: 3 });
    const [label, retries] = node.attributes;
    expect(label!.keySpan.start).toMatchObject({ line: 2, column: 9 });
    expect(label!.value.span.start).toMatchObject({ line: 2, column: 15 });
    expect(label!.value.span.end).toMatchObject({ line: 2, column: 21 });
    expect(label!.span.end.offset - label!.span.start.offset).toBe('label="Plan"'.length);
    expect(retries!.value.span.start).toMatchObject({ line: 2, column: 35 });
    expect(edge.nodes.map((id) => [id.name, id.span.start.column])).toEqual([
      ['plan', 3],
      ['done', 11],
    ]);
  });

  it('maps spans after long multi-line strings back to the right line and column', () => {
    const [first, second] = parseBody('a [prompt="line 1\nline 2\nline 3"] b [x=1]');
    expect(first!.span.end).toMatchObject({ line: 4, column: 9 });
    if (second?.kind !== 'node') throw new Error('expected a node');
    expect(second.id.span.start).toMatchObject({ line: 4, column: 10 });
    expect(second.attributes[0]!.value.span.start).toMatchObject({ line: 4, column: 15 });
  });
});

describe('parseDot: identifiers elided before matching (issue 2, chunk-text.ts)', () => {
  // Every identifier is handed to Ohm as its first character; keywords and true/false are not. These
  // inputs put each kind of word where a shortened one could change the parse or a span.
  const source = [
    'digraph Elided {',
    '  NODE [shape=box]',
    '  Edge [weight=2]',
    '  GRAPH [goal="g"]',
    '  subgraph_a [label="not a subgraph"]',
    '  subgraphs -> node_1 -> edge_2 -> graph3',
    '  nodes [flag=true, flagged=trueish, off=false]',
    '  stage.limits.max = 7',
    '  timeouts [timeout=900s, delay=250ms, ratio=1.5, neg=-3, model=gpt-4o, id=openai:gpt-5.1]',
    '  constructor [x=1]',
    '  a_really_long_identifier_with_digits_123 -> b [condition="outcome=success"]',
    '}',
  ].join('\n');

  it('gives the same AST as matching the full text', () => {
    expect(parseDot(source, { filename: 'elided.dot' })).toEqual(
      parseDotWithoutChunks(source, { filename: 'elided.dot' }),
    );
  });

  it('reads keywords in any case as defaults and longer words starting with a keyword as ids', () => {
    expect(summarize(parseDot(source).statements)).toEqual([
      { kind: 'nodeDefaults', attributes: { shape: 'box' } },
      { kind: 'edgeDefaults', attributes: { weight: '2' } },
      { kind: 'graphAttributes', attributes: { goal: 'g' } },
      { kind: 'node', id: 'subgraph_a', attributes: { label: 'not a subgraph' } },
      { kind: 'edgeChain', nodes: ['subgraphs', 'node_1', 'edge_2', 'graph3'], attributes: {} },
      { kind: 'node', id: 'nodes', attributes: { flag: 'true', flagged: 'trueish', off: 'false' } },
      { kind: 'attributeDeclaration', key: 'stage.limits.max', value: '7' },
      {
        kind: 'node',
        id: 'timeouts',
        attributes: {
          timeout: '900s',
          delay: '250ms',
          ratio: '1.5',
          neg: '-3',
          model: 'gpt-4o',
          id: 'openai:gpt-5.1',
        },
      },
      { kind: 'node', id: 'constructor', attributes: { x: '1' } },
      {
        kind: 'edgeChain',
        nodes: ['a_really_long_identifier_with_digits_123', 'b'],
        attributes: { condition: 'outcome=success' },
      },
    ]);
  });

  it('keeps the token kind of every value', () => {
    const statements = parseDot(source).statements;
    const kinds = (index: number) =>
      attributesOf(statements[index]!).map((attribute) => attribute.value.kind);
    expect(kinds(5)).toEqual(['boolean', 'bare', 'boolean']);
    expect(kinds(7)).toEqual(['duration', 'duration', 'float', 'integer', 'bare', 'bare']);
  });

  it('maps the spans of long identifiers and of what follows them back to the source', () => {
    const statements = parseDot(source).statements;
    const edge = statements[9]!;
    if (edge.kind !== 'edgeChain') throw new Error('expected an edge chain');
    const [from, to] = edge.nodes;
    expect(from!.span.start).toMatchObject({ line: 11, column: 3 });
    expect(from!.span.end).toMatchObject({ line: 11, column: 43 });
    expect(to!.span.start).toMatchObject({ line: 11, column: 47 });
    const condition = edge.attributes[0]!;
    expect(condition.keySpan.start).toMatchObject({ line: 11, column: 50 });
    expect(condition.value.span).toMatchObject({ start: { column: 60 }, end: { column: 77 } });
    expect(edge.span.end).toMatchObject({ line: 11, column: 78 });
    const declaration = statements[6]!;
    expect(declaration.span).toMatchObject({ start: { line: 8, column: 3 }, end: { line: 8, column: 23 } });
  });

  it('reports an error after a long identifier at its real column', () => {
    expect(() => parseBody('  a_long_node_name [label="x"] = 3')).toThrow(
      expect.objectContaining({ location: expect.objectContaining({ line: 2, column: 32 }) }),
    );
  });
});

describe('parseDot: keyword statements', () => {
  it('rejects a keyword used as a node id or as the source of an edge', () => {
    expect(() => parseBody('node')).toThrow('"node" is a keyword and cannot be a node id');
    expect(() => parseBody('Edge -> b')).toThrow('"Edge" is a keyword and cannot be a node id');
    expect(() => parseBody('a -> graph')).toThrow('"graph" is a keyword and cannot be a node id');
  });
});

describe('parseDot quoted graph ids (legal Graphviz, issue 19)', () => {
  it('accepts a quoted graph id, decoded and marked quoted', () => {
    const ast = parseDot('digraph "sp-workflow" {\n  a -> b\n}');
    expect(ast.id.name).toBe('sp-workflow');
    expect(ast.id.quoted).toBe(true);
    expect(parseDot('digraph G { a }').id.quoted).toBeUndefined();
  });
});
