import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { diagnosticsOf, lintRule } from '../../../test/lint-summary.js';
import { attributeChecks, attributeSchema } from '../../handler-attributes.js';
import { prepareGraph } from '../../prepare-graph.js';
import { SPEC_HANDLER_DECLARATIONS } from '../../spec-handler-declarations.js';
import type { HandlerLintInfo } from '../diagnostic.js';
import { BUILT_IN_HANDLER_TYPES } from '../validate.js';

function pipeline(body: string): string {
  return `digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n${body}\n}`;
}

describe('attribute_type (docs/architecture.md "Attributes")', () => {
  it('reports a malformed value at the value, naming node and expectation', () => {
    const source = pipeline('  work [prompt="x", timeout="soon", max_retries=-1]\n  start -> work -> exit');
    expect(lintRule(source, 'attribute_type')).toEqual(['error 4:29 work', 'error 4:49 work']);
    expect(diagnosticsOf(source, 'attribute_type')[0]).toMatchObject({
      message:
        'Node "work" has timeout="soon", which is not valid: expected a duration such as 250ms, 900s, 15m, 2h or 1d.',
      fix: 'Write timeout as a duration such as 250ms, 900s, 15m, 2h or 1d.',
    });
  });

  it('reports a backend value that names no backend, listing the backends', () => {
    const source = pipeline('  work [prompt="x", backend="claude"]\n  start -> work -> exit');
    expect(lintRule(source, 'attribute_type')).toEqual(['error 4:29 work']);
    expect(diagnosticsOf(source, 'attribute_type')[0]?.message).toBe(
      'Node "work" has backend="claude", which is not valid: expected one of api, claude-code, codex, gemini-cli.',
    );
    expect(
      lintRule(pipeline('  work [prompt="x", backend="codex"]\n  start -> work -> exit'), 'attribute_type'),
    ).toEqual([]);
  });

  it('reports a bad default once, at the default block', () => {
    const source = pipeline(
      '  node [goal_gate=maybe]\n  a [prompt="x"]\n  b [prompt="y"]\n  start -> a -> b -> exit',
    );
    expect(lintRule(source, 'attribute_type')).toEqual(['error 4:19 a']);
  });

  it('reports a bad value of an edge chain once, with the first edge, and a bad edge default once', () => {
    const source = pipeline('  edge [weight=heavy]\n  start -> a -> b -> exit [loop_restart=perhaps]');
    expect(lintRule(source, 'attribute_type')).toEqual(['error 4:16 start->a', 'error 5:41 start->a']);
    expect(diagnosticsOf(source, 'attribute_type')[0]?.message).toBe(
      'Edge start -> a (via a default block) has weight="heavy", which is not valid: expected an integer such as 3.',
    );
  });

  it('checks graph and edge values', () => {
    const source = pipeline('  max_steps=many\n  start -> exit [weight=heavy]');
    expect(lintRule(source, 'attribute_type')).toEqual(['error 4:13', 'error 5:25 start->exit']);
  });

  it('checks the run budgets max_budget_usd (a number) and max_tokens (a positive integer)', () => {
    const bad = pipeline('  max_budget_usd="five dollars"\n  max_tokens=1.5\n  start -> exit');
    expect(diagnosticsOf(bad, 'attribute_type').map((diagnostic) => diagnostic.message)).toEqual([
      'Graph "G" has max_budget_usd="five dollars", which is not valid: expected a non-negative number such as 2.5.',
      'Graph "G" has max_tokens="1.5", which is not valid: expected a positive integer such as 4.',
    ]);
    const good = pipeline('  max_budget_usd=2.5\n  max_tokens=200000\n  start -> exit');
    expect(lintRule(good, 'attribute_type')).toEqual([]);
  });

  it('accepts well-typed values', () => {
    const source = pipeline(
      '  work [prompt="x", timeout="15m", max_retries=2, goal_gate=true]\n  start -> work -> exit [weight=3]',
    );
    expect(lintRule(source, 'attribute_type')).toEqual([]);
  });

  it.each([
    // [node, its bad value, the expected words of the attribute table]
    ['p [shape=component, max_parallel="x"]', 'max_parallel="x"', 'a positive integer such as 4'],
    [
      'p [shape=component, join_policy="bogus"]',
      'join_policy="bogus"',
      'one of wait_all, first_success, k_of_n, quorum',
    ],
    [
      'p [shape=component, branch_timeout="soon"]',
      'branch_timeout="soon"',
      'a duration such as 250ms, 900s, 15m, 2h or 1d',
    ],
    ['p [shape=hexagon, human.input="voice"]', 'human.input="voice"', 'one of choice, text'],
    [
      'p [shape=parallelogram, tool_output_max_bytes=0]',
      'tool_output_max_bytes="0"',
      'a positive integer such as 4',
    ],
    [
      'p [shape=house, manager.actions="dance"]',
      'manager.actions="dance"',
      'a comma-separated list of observe, steer, wait',
    ],
    ['p [shape=tripleoctagon, fan_in_mode="vote"]', 'fan_in_mode="vote"', 'one of pick, merge'],
    [
      'p [prompt="x", tools="rm"]',
      'tools="rm"',
      'none, all, or a comma-separated list of read_file, write_file, edit_file, shell, grep, glob',
    ],
  ])("reports a built-in handler's bad value once, from its schema: %s", (node, written, expected) => {
    const source = pipeline(`  ${node}\n  start -> p -> exit`);
    expect(diagnosticsOf(source, 'attribute_type').map(({ message, fix }) => ({ message, fix }))).toEqual([
      {
        message: `Node "p" has ${written}, which is not valid: expected ${expected}.`,
        fix: `Write ${written.slice(0, written.indexOf('='))} as ${expected}.`,
      },
    ]);
  });

  it("checks a built-in key with the schema of the node's handler, not the attribute table", () => {
    const source = pipeline('  p [shape=component, max_parallel="x"]\n  start -> p -> exit');
    // A registered parallel handler that reads max_parallel as free text: no error.
    const { attributes, ...traits } = SPEC_HANDLER_DECLARATIONS.parallel;
    const lenient = attributeChecks(z.object({ ...attributes.shape, max_parallel: z.optional(z.string()) }));
    const handlers = new Map<string, HandlerLintInfo>([['parallel', { ...traits, ...lenient }]]);
    expect(lintRule(source, 'attribute_type', { handlers })).toEqual([]);
    // With the built-in declaration, registered or not, one error.
    const builtIn = new Map<string, HandlerLintInfo>([
      ['parallel', { ...traits, ...attributeChecks(attributes) }],
    ]);
    expect(lintRule(source, 'attribute_type', { handlers: builtIn })).toEqual(['error 4:36 p']);
    expect(lintRule(source, 'attribute_type')).toEqual(['error 4:36 p']);
  });

  it('reports a bad handler key from a default block once, at the first node whose handler reads it', () => {
    const source = pipeline(
      '  node [max_parallel="x"]\n  a [prompt="y"]\n  p [shape=component]\n  q [shape=component]\n  start -> a -> p -> q -> exit',
    );
    expect(lintRule(source, 'attribute_type')).toEqual(['error 4:22 p']);
    const custom = pipeline(
      '  node [region="mars"]\n  d [type="deploy"]\n  e [type="deploy"]\n  start -> d -> e -> exit',
    );
    const deploy = attributeChecks(z.object({ region: z.optional(z.enum(['eu', 'us'])) }));
    const handlers = new Map<string, HandlerLintInfo>([['deploy', deploy]]);
    expect(lintRule(custom, 'attribute_type', { handlers })).toEqual(['error 4:16 d']);
  });

  it("leaves a handler key on another handler's node to inert_attribute: its value is no mistake of ours", () => {
    const source = pipeline(
      '  t [shape=parallelogram, tool_command="make", max_parallel="x"]\n  start -> t -> exit',
    );
    expect(diagnosticsOf(source, 'attribute_type')).toEqual([]);
    expect(lintRule(source, 'inert_attribute')).toEqual(['warning 4:48 t']);
    // Another runner's gate mode (Tracker's freeform gates) is not a foreach's mode.
    const gate = pipeline(
      '  ask [shape=hexagon, label="What next?", mode="freeform"]\n  start -> ask -> exit [label="Go"]',
    );
    expect(diagnosticsOf(gate, 'attribute_type')).toEqual([]);
    expect(lintRule(gate, 'inert_attribute')).toEqual(['warning 4:43 ask']);
    const foreach = pipeline(
      '  each [type="foreach", over="files", mode="freeform"]\n  start -> each -> exit',
    );
    expect(lintRule(foreach, 'attribute_type')).toEqual(['error 4:44 each']);
  });
});

describe('fidelity_valid (spec §7.2)', () => {
  it('warns about an unknown fidelity mode on nodes, edges and the graph', () => {
    const source = pipeline(
      '  default_fidelity=medium\n  work [prompt="x", fidelity=summary]\n  start -> work -> exit [fidelity=fulll]',
    );
    expect(lintRule(source, 'fidelity_valid')).toEqual([
      'warning 4:20',
      'warning 5:30 work',
      'warning 6:35 start->work',
    ]);
    expect(diagnosticsOf(source, 'fidelity_valid')[2]?.message).toContain('Did you mean "full"?');
  });

  it('accepts the modes of §5.4', () => {
    expect(
      lintRule(
        pipeline('  work [prompt="x", fidelity="summary:low"]\n  start -> work -> exit'),
        'fidelity_valid',
      ),
    ).toEqual([]);
  });
});

describe('unknown_attribute', () => {
  it('warns about unknown keys with a did-you-mean, at the key', () => {
    const source = pipeline('  work [prompt="x", max_retires=2, is_codergen=true]\n  start -> work -> exit');
    expect(lintRule(source, 'unknown_attribute')).toEqual(['warning 4:21 work', 'warning 4:36 work']);
    const [typo, other] = diagnosticsOf(source, 'unknown_attribute');
    expect(typo?.message).toBe(
      'Node "work" has unknown attribute "max_retires". Did you mean "max_retries"?',
    );
    expect(typo?.fix).toBe('Rename max_retires to max_retries.');
    expect(other?.message).toBe('Node "work" has unknown attribute "is_codergen".');
  });

  it('reports keys named after Object.prototype members as unknown, not as dialect aliases', () => {
    const source = pipeline('  work [prompt="x", constructor="y", toString="z"]\n  start -> work -> exit');
    expect(lintRule(source, 'unknown_attribute')).toEqual(['warning 4:21 work', 'warning 4:38 work']);
    expect(lintRule(source, 'dialect_alias')).toEqual([]);
    expect(diagnosticsOf(source, 'unknown_attribute')[0]?.message).toBe(
      'Node "work" has unknown attribute "constructor".',
    );
  });

  it("suggests our key for a namespaced key written bare and for other runners' names", () => {
    const source = pipeline(
      '  ask [shape=hexagon, default_choice=A]\n  work [prompt="x", allowed_tools="grep"]\n  start -> ask -> work -> exit [label="[A] Go"]',
    );
    expect(diagnosticsOf(source, 'unknown_attribute').map((d) => d.fix)).toEqual([
      'Rename default_choice to human.default_choice.',
      'Rename allowed_tools to tools.',
    ]);
  });

  it('reports a known key written in the wrong place', () => {
    const source = pipeline('  work [prompt="x", condition="outcome=success"]\n  start -> work -> exit');
    expect(diagnosticsOf(source, 'unknown_attribute')[0]?.message).toBe(
      'Node "work" has "condition", which is a edge attribute and has no effect on a node.',
    );
  });

  it('accepts known keys, aliases and Graphviz presentation attributes', () => {
    const source = pipeline(
      '  rankdir=LR\n  work [prompt="x", style=filled, fillcolor=red, llm_prompt="y"]\n  start -> work -> exit [color=blue]',
    );
    expect(lintRule(source, 'unknown_attribute')).toEqual([]);
  });
});

describe('dialect_alias (docs/architecture.md "Dialect")', () => {
  const source = pipeline(
    '  context_fidelity_default="compact"\n  work [llm_prompt="x", node_type="codergen"]\n  start -> work -> exit',
  );

  it('warns at each alias key with its canonical name as the fix', () => {
    expect(lintRule(source, 'dialect_alias')).toEqual([
      'warning 4:3',
      'warning 5:9 work',
      'warning 5:25 work',
    ]);
    expect(diagnosticsOf(source, 'dialect_alias')[1]).toMatchObject({
      message: 'Node "work" uses "llm_prompt", another runner\'s name for "prompt"; it is read as prompt.',
      fix: 'Rename llm_prompt to prompt.',
    });
  });

  it('makes aliases errors in strict mode', () => {
    expect(lintRule(source, 'dialect_alias', { strict: true })).toEqual([
      'error 4:3',
      'error 5:9 work',
      'error 5:25 work',
    ]);
  });

  it('is silent for canonical keys', () => {
    expect(lintRule(pipeline('  work [prompt="x"]\n  start -> work -> exit'), 'dialect_alias')).toEqual([]);
  });
});

describe('inert_attribute', () => {
  it('warns about a key the node handler ignores', () => {
    const source = pipeline(
      '  work [prompt="x", tool_command="make"]\n  t [shape=parallelogram, tool_command="make", join_policy=wait_all]\n  start -> work -> t -> exit',
    );
    expect(lintRule(source, 'inert_attribute')).toEqual(['warning 4:21 work', 'warning 5:48 t']);
    expect(diagnosticsOf(source, 'inert_attribute')[0]?.message).toBe(
      'Node "work" is a codergen node, which ignores tool_command; only tool nodes read it.',
    );
  });

  it('ignores inherited defaults and custom handler types', () => {
    const source = pipeline(
      '  node [llm_model="m"]\n  t [shape=parallelogram, tool_command="make"]\n  c [type="deploy", tool_command="x"]\n  start -> t -> c -> exit',
    );
    expect(lintRule(source, 'inert_attribute')).toEqual([]);
  });

  it.each([
    // [declared traits of the registered deploy handler, attribute on its node, findings]
    [{ runsCommand: true }, 'tool_command="make"', []],
    [{ runsCommand: true }, 'join_policy=wait_all', ['warning 4:21 d']],
    [{ callsModel: true }, 'llm_model="m"', []],
    [{ callsModel: true }, 'tool_command="make"', ['warning 4:21 d']],
    [{ asksHuman: true }, 'human.default_choice="exit"', []],
    [{ fansOut: true }, 'max_parallel=2', []],
    [{}, 'tool_command="make"', []],
  ] as const)('asks the traits of a registered handler %j about %s', (traits, attribute, findings) => {
    const source = pipeline(`  d [type="deploy", ${attribute}]\n  start -> d -> exit`);
    const options = {
      knownHandlerTypes: ['start', 'exit', 'deploy'],
      handlers: new Map([['deploy', traits]]),
    };
    expect(lintRule(source, 'inert_attribute', options)).toEqual(findings);
  });

  it.each([
    ['t [shape=parallelogram, max_parallel=2]', 'tool', 'max_parallel', 'parallel, foreach'],
    ['t [prompt="x", human.input=text]', 'codergen', 'human.input', 'wait.human'],
    ['t [shape=hexagon, tool_command="make"]', 'wait.human', 'tool_command', 'tool'],
    ['t [shape=component, fan_in_mode=merge]', 'parallel', 'fan_in_mode', 'parallel.fan_in'],
    ['t [shape=diamond, graph_ref="child.dot"]', 'conditional', 'graph_ref', 'subgraph'],
    [
      't [shape=parallelogram, tool_command="make", llm_model="m"]',
      'tool',
      'llm_model',
      'codergen, parallel.fan_in',
    ],
  ])("warns about a built-in handler's key on another one's node: %s", (node, type, key, readers) => {
    const source = pipeline(`  ${node}\n  start -> t -> exit`);
    expect(diagnosticsOf(source, 'inert_attribute').map((diagnostic) => diagnostic.message)).toEqual([
      `Node "t" is a ${type} node, which ignores ${key}; only ${readers} nodes read it.`,
    ]);
  });

  it('leaves tool_command alone on a registered handler whose schema declares it, and names it as a reader', () => {
    const source = pipeline(
      '  d [type="deploy", tool_command="make"]\n  w [prompt="x", tool_command="make"]\n  start -> d -> w -> exit',
    );
    const deploy: HandlerLintInfo = {
      callsModel: true,
      ...attributeChecks(z.object({ tool_command: attributeSchema('tool_command') })),
    };
    const options = {
      knownHandlerTypes: ['start', 'exit', 'codergen', 'deploy'],
      handlers: new Map([['deploy', deploy]]),
    };
    expect(lintRule(source, 'inert_attribute', options)).toEqual(['warning 5:18 w']);
    expect(diagnosticsOf(source, 'inert_attribute', options)[0]?.message).toBe(
      'Node "w" is a codergen node, which ignores tool_command; only tool, deploy nodes read it.',
    );
  });

  it('leaves a key a registered handler lists among its attribute keys alone', () => {
    const source = pipeline('  d [type="deploy", join_policy=wait_all]\n  start -> d -> exit');
    const handlers = new Map([['deploy', { runsCommand: true, attributeKeys: ['join_policy'] }]]);
    expect(lintRule(source, 'inert_attribute', { handlers })).toEqual([]);
  });
});

describe('shape_mapping (spec §2.8)', () => {
  it('notes a shape that maps to no handler', () => {
    const source = pipeline('  work [shape=tab, prompt="x"]\n  start -> work -> exit');
    expect(lintRule(source, 'shape_mapping')).toEqual(['info 4:15 work']);
  });

  it('refuses a near-miss of a tool, gate or routing shape, with the shape it probably meant', () => {
    const source = pipeline('  run [shape=paralelogram, tool_command="make"]\n  start -> run -> exit');
    expect(lintRule(source, 'shape_mapping')).toEqual(['error 4:14 run']);
    expect(diagnosticsOf(source, 'shape_mapping')[0]).toMatchObject({
      message:
        'Node "run" has shape=paralelogram, which is neither a Graphviz shape nor a handler shape (spec §2.8), so it would run as an LLM (codergen) stage. Did you mean "parallelogram" (the tool handler)?',
      fix: 'Change shape=paralelogram to shape=parallelogram, or set type="tool".',
    });
  });

  it.each([
    ['parallelogramm', 'parallelogram', 'tool'],
    ['hexgon', 'hexagon', 'wait.human'],
    ['diamnd', 'diamond', 'conditional'],
    ['componet', 'component', 'parallel'],
    ['tripleoctogon', 'tripleoctagon', 'parallel.fan_in'],
    ['hose', 'house', 'stack.manager_loop'],
    ['mdiamond', 'Mdiamond', 'start'],
  ])('refuses shape=%s as a typo of %s (the %s handler)', (shape, meant, handler) => {
    const source = pipeline(`  step [shape=${shape}, prompt="x"]\n  start -> step -> exit`);
    const [diagnostic] = diagnosticsOf(source, 'shape_mapping');
    expect(diagnostic).toMatchObject({ severity: 'error', nodeId: 'step' });
    expect(diagnostic?.message).toContain(`Did you mean "${meant}" (the ${handler} handler)?`);
  });

  it('only warns about a near-miss of box, which runs as the same LLM stage', () => {
    const source = pipeline(
      '  work [shape=bx, prompt="x"]\n  more [shape=boxx, prompt="y"]\n  start -> work -> more -> exit',
    );
    expect(lintRule(source, 'shape_mapping')).toEqual(['info 4:15 work', 'warning 5:15 more']);
    expect(diagnosticsOf(source, 'shape_mapping')[1]?.message).toBe(
      'Node "more" has shape=boxx, which is neither a Graphviz shape nor a handler shape (spec §2.8), so it runs as an LLM (codergen) stage. Did you mean "box" (the codergen handler)?',
    );
  });

  it('keeps other Graphviz shapes close to a mapped one as an info', () => {
    const source = pipeline(
      '  a [shape=septagon, prompt="x"]\n  b [shape=box3d, prompt="x"]\n  c [shape=ellipse, prompt="x"]\n  start -> a -> b -> c -> exit',
    );
    expect(lintRule(source, 'shape_mapping')).toEqual(['info 4:12 a', 'info 5:12 b', 'info 6:12 c']);
  });

  it('is silent for mapped shapes and typed nodes', () => {
    const source = pipeline('  work [shape=circle, type="codergen", prompt="x"]\n  start -> work -> exit');
    expect(lintRule(source, 'shape_mapping')).toEqual([]);
  });
});

describe('type_known (spec §7.2)', () => {
  it('warns about a near-miss of a registered type at its value, with a fix that does not replace it blindly', () => {
    const source = pipeline('  gate [type="wait.humna"]\n  start -> gate -> exit');
    expect(lintRule(source, 'type_known')).toEqual(['warning 4:14 gate']);
    expect(diagnosticsOf(source, 'type_known')[0]?.fix).toBe(
      'If this node should run the wait.human handler, change type to "wait.human"; otherwise register a handler for "wait.humna".',
    );
  });

  it('says a mistyped type runs as the default LLM (codergen) stage', () => {
    const source = pipeline('  child [type="subgrahp", graph_ref="child.dot"]\n  start -> child -> exit');
    expect(diagnosticsOf(source, 'type_known')[0]?.message).toBe(
      'Node "child" has type "subgrahp", which no registered handler has, so it runs as an LLM (codergen) stage, the default handler. Did you mean "subgraph"?',
    );
  });

  it('says an unknown type on a mapped shape runs as the handler of that shape, without guessing from a short name', () => {
    const source = pipeline(
      '  run [shape=parallelogram, type="tol", tool_command="true"]\n  start -> run -> exit',
    );
    expect(diagnosticsOf(source, 'type_known')[0]?.message).toBe(
      'Node "run" has type "tol", which no registered handler has, so it runs as the tool handler of its shape (parallelogram).',
    );
  });

  it('never suggests a handler of another category by edit distance (issue 19 bug 3: "exec" is not "exit")', () => {
    const source = pipeline('  build [type="exek", tool_command="make"]\n  start -> build -> exit');
    const [finding] = diagnosticsOf(source, 'type_known');
    expect(finding?.severity).toBe('warning');
    expect(finding?.message).not.toContain('exit');
    expect(finding?.fix).not.toContain('"exit"');
  });

  it('suggests a handler of the same kind of work for a known synonym', () => {
    const source = pipeline('  build [type="shell", tool_command="make"]\n  start -> build -> exit');
    expect(diagnosticsOf(source, 'type_known')[0]?.message).toContain('Did you mean "tool"?');
  });

  it.each([
    // [unknown type, declared traits of the registered deploy handler, suggestion]
    ['shell', { runsCommand: true }, 'Did you mean "tool" or "deploy"?'],
    ['approval', { asksHuman: true }, 'Did you mean "wait.human" or "deploy"?'],
    ['fan_out', { fansOut: true }, 'Did you mean "parallel" or "foreach" or "deploy"?'],
    ['agent', { callsModel: true }, 'Did you mean "codergen" or "deploy"?'],
    ['shell', { callsModel: true }, 'Did you mean "tool"?'],
  ] as const)(
    'suggests for %s every registered type whose handler declares its capability (%j)',
    (type, traits, hint) => {
      const source = pipeline(`  build [type="${type}"]\n  start -> build -> exit`);
      const options = {
        knownHandlerTypes: [...BUILT_IN_HANDLER_TYPES, 'deploy'],
        handlers: new Map([['deploy', traits]]),
      };
      const [finding] = diagnosticsOf(source, 'type_known', options);
      expect(finding?.message.endsWith(hint)).toBe(true);
    },
  );

  it('names the registered handler alone when no built-in has the capability registered', () => {
    const source = pipeline('  build [type="bash"]\n  start -> build -> exit');
    const options = {
      knownHandlerTypes: ['start', 'exit', 'deploy'],
      handlers: new Map([['deploy', { runsCommand: true }]]),
    };
    expect(diagnosticsOf(source, 'type_known', options)[0]?.fix).toBe(
      'If this node should run the deploy handler, change type to "deploy"; otherwise register a handler for "bash".',
    );
  });

  it('warns about a custom type far from every registered one, and takes the known types as an option', () => {
    const source = pipeline('  deploy [type="deploy"]\n  start -> deploy -> exit');
    expect(lintRule(source, 'type_known')).toEqual(['warning 4:16 deploy']);
    expect(diagnosticsOf(source, 'type_known')[0]?.message).toBe(
      'Node "deploy" has type "deploy", which no registered handler has, so it runs as an LLM (codergen) stage, the default handler.',
    );
    expect(lintRule(source, 'type_known', { knownHandlerTypes: ['start', 'exit', 'deploy'] })).toEqual([]);
  });
});

describe('duration_unit (spec §2.4)', () => {
  it('warns about a duration without a unit, read as seconds', () => {
    const source = pipeline('  work [prompt="x", timeout="300"]\n  start -> work -> exit');
    expect(lintRule(source, 'duration_unit')).toEqual(['warning 4:29 work']);
    expect(lintRule(source, 'attribute_type')).toEqual([]);
    expect(diagnosticsOf(source, 'duration_unit')[0]?.fix).toBe(
      'Write timeout="300s" (units: ms, s, m, h, d).',
    );
  });

  it('is silent for durations with units', () => {
    expect(
      lintRule(pipeline('  work [prompt="x", timeout="5m"]\n  start -> work -> exit'), 'duration_unit'),
    ).toEqual([]);
  });
});

describe('dialect_alias on node kinds other runners write (issue 19)', () => {
  it("runs Amplifier's shape=folder + dot_file as a sub-pipeline", () => {
    const source = pipeline('  child [shape=folder, dot_file="child.dot"]\n  start -> child -> exit');
    const { graph } = prepareGraph(source, {
      filename: 'test.dot',
      readGraphFile: () => 'digraph C { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }',
    });
    const node = graph!.node('child')!;
    expect(graph!.handlerType(node)).toBe('subgraph');
    expect(node.attributes.graph_ref?.value).toBe('child.dot');
    expect(lintRule(source, 'dialect_alias')).toEqual(['warning 4:16 child', 'warning 4:24 child']);
  });

  it('runs a tool-shaped node with a prompt and no tool_command as an LLM stage (pascals-discrete-attractor)', () => {
    const source = pipeline(
      '  scaffold [shape=parallelogram, prompt="Run sed on the template"]\n  start -> scaffold -> exit',
    );
    const { graph } = prepareGraph(source, { filename: 'test.dot' });
    expect(graph!.handlerType(graph!.node('scaffold')!)).toBe('codergen');
    expect(lintRule(source, 'tool_command_required')).toEqual([]);
    expect(lintRule(source, 'dialect_alias')).toEqual(['warning 4:19 scaffold']);
    const withCommand = pipeline(
      '  t [shape=parallelogram, prompt="x", tool_command="true"]\n  start -> t -> exit',
    );
    expect(prepareGraph(withCommand).graph!.handlerType(prepareGraph(withCommand).graph!.node('t')!)).toBe(
      'tool',
    );
  });
});
