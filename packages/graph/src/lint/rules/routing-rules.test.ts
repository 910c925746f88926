import { describe, expect, it } from 'vitest';
import { diagnosticsOf, lintRule } from '../../../test/lint-summary.js';

function pipeline(body: string): string {
  return `digraph G {\n  graph [goal="Ship"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n${body}\n}`;
}

describe('condition_syntax (spec §7.2, §10.2)', () => {
  it('reports a condition that does not parse at the offending character', () => {
    const source = pipeline(
      '  start -> work\n  work -> exit [condition="outcome=success OR context.done=true"]',
    );
    expect(lintRule(source, 'condition_syntax')).toEqual(['error 6:44 work->exit']);
    expect(diagnosticsOf(source, 'condition_syntax')[0]?.fix).toContain('"OR" is not supported');
  });

  it('accepts the operators of spec §10.7 with a dialect_alias warning at each, refused under strict (issue 19)', () => {
    const source = pipeline(
      '  start -> work\n  work -> exit [condition="outcome=success || context.score >= 5"]\n  work -> work',
    );
    expect(lintRule(source, 'condition_syntax')).toEqual([]);
    expect(lintRule(source, 'dialect_alias')).toEqual(['warning 6:44 work->exit', 'warning 6:61 work->exit']);
    expect(lintRule(source, 'dialect_alias', { strict: true })).toEqual([
      'error 6:44 work->exit',
      'error 6:61 work->exit',
    ]);
  });

  it('reports an invalid manager.stop_condition', () => {
    const source = pipeline(
      '  boss [shape=house, stack.child_dotfile="c.dot", manager.stop_condition="done=="]\n  start -> boss -> exit',
    );
    expect(lintRule(source, 'condition_syntax')).toEqual(['error 5:79 boss']);
  });

  it('accepts the conditions of §10.6', () => {
    const source = pipeline(
      '  start -> work\n  work -> exit [condition="outcome=success && context.tests_passed=true"]\n  work -> work [condition="context.loop_state!=exhausted"]\n  work -> exit [condition="preferred_label=Fix"]',
    );
    expect(lintRule(source, 'condition_syntax')).toEqual([]);
  });
});

describe('condition_key (spec §10.2, §10.4)', () => {
  it('reports a near-miss of outcome at the key inside the condition, with the key it probably meant', () => {
    const source = pipeline(
      '  start -> test\n  test -> exit [condition="outcom=success"]\n  test -> test [condition="outcome=fail"]',
    );
    expect(lintRule(source, 'condition_key')).toEqual(['error 6:28 test->exit']);
    const [diagnostic] = diagnosticsOf(source, 'condition_key');
    expect(diagnostic?.message).toBe(
      'Edge test -> exit has condition "outcom=success" whose key "outcom" is read from the run context (spec §10.4), not the node\'s outcome. Did you mean "outcome"?',
    );
    expect(diagnostic?.fix).toBe(
      'Write outcome=success; if "outcom" really is a context key, write context.outcom=success.',
    );
    expect(diagnostic?.span?.end.column).toBe(34);
  });

  it('reports near-misses of preferred_label and a capitalised Outcome in any clause', () => {
    const source = pipeline(
      '  start -> gate\n  gate -> exit [condition="context.ready=true && prefered_label=Fix"]\n  gate -> gate [condition="Outcome!=success"]',
    );
    expect(lintRule(source, 'condition_key')).toEqual(['error 6:50 gate->exit', 'error 7:28 gate->gate']);
    expect(diagnosticsOf(source, 'condition_key')[0]?.message).toContain('Did you mean "preferred_label"?');
  });

  it('checks a manager.stop_condition', () => {
    const source = pipeline(
      '  boss [shape=house, stack.child_dotfile="c.dot", manager.stop_condition="outcme=success"]\n  start -> boss -> exit',
    );
    expect(lintRule(source, 'condition_key')).toEqual(['error 5:75 boss']);
  });

  it('accepts outcome, preferred_label, context keys, qualified near-misses and other bare keys', () => {
    const source = pipeline(
      '  start -> work\n  work -> exit [condition="outcome=success && preferred_label=Ship"]\n  work -> work [condition="context.outcom=x && tool.output=done && income"]',
    );
    expect(lintRule(source, 'condition_key')).toEqual([]);
  });
});

describe('condition_coverage (docs/architecture.md "Routing dead ends")', () => {
  it('warns when only conditional edges leave a node and none matches success', () => {
    const source = pipeline(
      '  start -> work\n  work -> exit [condition="outcome=fail"]\n  work -> work [condition="outcome=retry"]',
    );
    expect(lintRule(source, 'condition_coverage')).toEqual(['warning 5:12 work']);
    expect(diagnosticsOf(source, 'condition_coverage')[0]?.message).toBe(
      'Every outgoing edge of "work" is conditional and none matches outcome=success: the run would stop at "work" with no eligible edge.',
    );
    expect(diagnosticsOf(source, 'condition_coverage')[0]?.fix).toBe(
      'For outcome=success, add an unconditional edge from "work" or an edge with condition="outcome=success".',
    );
  });

  it('warns about fail when the node has no retry target, advising a fail edge or a retry target (spec §3.7)', () => {
    const source = pipeline('  start -> work\n  work -> exit [condition="outcome=success"]');
    expect(lintRule(source, 'condition_coverage')).toEqual(['warning 5:12 work']);
    const fix = diagnosticsOf(source, 'condition_coverage')[0]?.fix;
    expect(fix).toBe(
      'For outcome=fail, add an edge from "work" with condition="outcome=fail", or set retry_target (or fallback_retry_target) on "work"; a failed stage never takes an unconditional edge.',
    );
    expect(fix).not.toContain('add an unconditional edge');
    const withFallback = pipeline(
      '  start -> work\n  work [fallback_retry_target=work]\n  work -> exit [condition="outcome=success"]',
    );
    expect(lintRule(withFallback, 'condition_coverage')).toEqual([]);
    const withTarget = pipeline(
      '  start -> work\n  work [retry_target=work]\n  work -> exit [condition="outcome=success"]',
    );
    expect(lintRule(withTarget, 'condition_coverage')).toEqual([]);
  });

  it('accepts a node with an unconditional fallback or complementary conditions', () => {
    const fallback = pipeline(
      '  start -> work\n  work -> exit [condition="outcome=success"]\n  work -> work',
    );
    expect(lintRule(fallback, 'condition_coverage')).toEqual([]);
    const both = pipeline(
      '  start -> work\n  work -> exit [condition="outcome=success"]\n  work -> work [condition="outcome!=success"]',
    );
    expect(lintRule(both, 'condition_coverage')).toEqual([]);
  });

  it('advises per outcome when neither success nor fail is matched', () => {
    const source = pipeline(
      '  start -> work\n  work -> exit [condition="outcome=partial_success"]\n  work -> work [condition="outcome=retry"]',
    );
    expect(diagnosticsOf(source, 'condition_coverage')[0]?.fix).toBe(
      'For outcome=success, add an unconditional edge from "work" or an edge with condition="outcome=success". For outcome=fail, add an edge from "work" with condition="outcome=fail", or set retry_target (or fallback_retry_target) on "work"; a failed stage never takes an unconditional edge.',
    );
  });
});

describe('outcome_coverage (docs/architecture.md "Outcomes")', () => {
  it('warns about a misspelt outcome at the literal', () => {
    const source = pipeline('  start -> work\n  work -> exit [condition="outcome=sucess"]\n  work -> work');
    expect(lintRule(source, 'outcome_coverage')).toEqual(['warning 6:36 work work->exit']);
    expect(diagnosticsOf(source, 'outcome_coverage')[0]?.fix).toBe('Change it to outcome=success.');
  });

  it('warns about an outcome the handler cannot return', () => {
    const source = pipeline(
      '  ask [shape=hexagon]\n  start -> ask\n  ask -> exit [label="ok", condition="outcome=partial_success"]\n  ask -> exit [label="no"]',
    );
    expect(lintRule(source, 'outcome_coverage')).toEqual(['warning 7:47 ask ask->exit']);
  });

  it('reads a registered handler’s declared outcomes over the spec’s', () => {
    const source = pipeline(
      '  ask [shape=hexagon]\n  start -> ask\n  ask -> exit [label="ok", condition="outcome=partial_success"]\n  ask -> exit [label="no"]',
    );
    const handlers = new Map([['wait.human', { outcomes: ['success', 'partial_success'] }]]);
    expect(lintRule(source, 'outcome_coverage', { handlers })).toEqual([]);
  });

  it('warns when a prompt asks for a custom outcome no edge routes', () => {
    const source = pipeline(
      '  work [prompt="Write outcome=process or outcome=done"]\n  start -> work\n  work -> exit [condition="outcome=done"]\n  work -> work [condition="outcome=fail"]',
    );
    expect(lintRule(source, 'outcome_coverage')).toEqual(['warning 5:16 work']);
    expect(diagnosticsOf(source, 'outcome_coverage')[0]?.message).toContain('asks for outcome "process"');
  });

  it('accepts custom outcomes on LLM nodes and standard ones elsewhere', () => {
    const source = pipeline(
      '  work [prompt="Write outcome=process or outcome=done"]\n  start -> work\n  work -> exit [condition="outcome=done"]\n  work -> work [condition="outcome=process"]',
    );
    expect(lintRule(source, 'outcome_coverage')).toEqual([]);
  });
});

describe('goal_gate_has_retry and goal_gate_bypass (spec §3.4)', () => {
  it('goal_gate_has_retry: warns about a gate with nowhere to jump, at goal_gate', () => {
    const source = pipeline('  work [prompt="x", goal_gate=true]\n  start -> work -> exit');
    expect(lintRule(source, 'goal_gate_has_retry')).toEqual(['warning 5:31 work']);
    expect(
      lintRule(source.replace('goal_gate=true', 'goal_gate=true, retry_target=work'), 'goal_gate_has_retry'),
    ).toEqual([]);
    expect(
      lintRule(
        source.replace('graph [goal="Ship"]', 'graph [goal="Ship", retry_target=work]'),
        'goal_gate_has_retry',
      ),
    ).toEqual([]);
  });

  it('goal_gate_bypass: warns when a route reaches the exit without the gate', () => {
    const source = pipeline(
      '  test [prompt="x", goal_gate=true, retry_target=test]\n  start -> work\n  work -> test -> exit\n  work -> exit [label="skip"]',
    );
    expect(lintRule(source, 'goal_gate_bypass')).toEqual(['warning 5:31 test']);
    expect(diagnosticsOf(source, 'goal_gate_bypass')[0]?.message).toBe(
      'Goal gate "test" can be bypassed: the route start -> work -> exit never visits it, and an unvisited gate is not checked.',
    );
  });

  it('goal_gate_bypass: counts a gate inside a parallel branch as visited', () => {
    const source = pipeline(
      '  fan [shape=component]\n  join [shape=tripleoctagon]\n  test [prompt="x", goal_gate=true, retry_target=fan]\n  start -> fan\n  fan -> test -> join\n  fan -> other -> join\n  join -> exit',
    );
    expect(lintRule(source, 'goal_gate_bypass')).toEqual([]);
  });

  it('goal_gate_bypass: names the shortest route around a gate that lies on the shortest route', () => {
    // The shortest route start -> a -> exit passes the gate "a"; the route around it is longer.
    const source = pipeline(
      '  a [prompt="x", goal_gate=true, retry_target=a]\n  start -> a -> exit\n  start -> b -> c -> exit\n  b -> d -> exit',
    );
    expect(diagnosticsOf(source, 'goal_gate_bypass').map((diagnostic) => diagnostic.message)).toEqual([
      'Goal gate "a" can be bypassed: the route start -> b -> c -> exit never visits it, and an unvisited gate is not checked.',
    ]);
  });

  it('goal_gate_bypass: stays silent for gates every route passes, however long the pipeline', () => {
    // A chain of 300 stages with a fail loop back from each and a gate every 10 stages: no gate can be skipped.
    const stages = Array.from({ length: 300 }, (_, index) => `s${index}`);
    const source = pipeline(
      [
        ...stages.map((id, index) => `  ${id} [prompt="x", goal_gate=${index % 10 === 0}, retry_target=s0]`),
        `  start -> ${stages.join(' -> ')} -> exit`,
        ...stages.slice(1).map((id, index) => `  ${id} -> s${index} [condition="outcome=fail"]`),
      ].join('\n'),
    );
    expect(lintRule(source, 'goal_gate_bypass')).toEqual([]);
  });

  it('goal_gate_bypass: reports each skippable gate of a long pipeline with its own route', () => {
    // Gates g0..g2 in a row, each with an edge around it.
    const source = pipeline(
      [
        '  g0 [prompt="x", goal_gate=true, retry_target=g0]',
        '  g1 [prompt="x", goal_gate=true, retry_target=g0]',
        '  g2 [prompt="x", goal_gate=true, retry_target=g0]',
        '  start -> g0 -> g1 -> g2 -> exit',
        '  start -> g1',
        '  g0 -> g2',
        '  g1 -> exit',
      ].join('\n'),
    );
    expect(diagnosticsOf(source, 'goal_gate_bypass').map((diagnostic) => diagnostic.message)).toEqual([
      'Goal gate "g0" can be bypassed: the route start -> g1 -> exit never visits it, and an unvisited gate is not checked.',
      'Goal gate "g1" can be bypassed: the route start -> g0 -> g2 -> exit never visits it, and an unvisited gate is not checked.',
      'Goal gate "g2" can be bypassed: the route start -> g1 -> exit never visits it, and an unvisited gate is not checked.',
    ]);
  });

  it('goal_gate_bypass: a gate in a branch is skipped only by a route avoiding both it and its parallel node', () => {
    // Neither "fan" nor "test" alone is on every route, but every route passes one of them: no bypass.
    const together = pipeline(
      '  fan [shape=component]\n  join [shape=tripleoctagon]\n  test [prompt="x", goal_gate=true, retry_target=fan]\n  start -> fan\n  fan -> test -> join\n  fan -> other -> join\n  join -> exit\n  start -> test',
    );
    expect(lintRule(together, 'goal_gate_bypass')).toEqual([]);
    // An extra edge start -> join skips both.
    expect(
      diagnosticsOf(`${together.slice(0, -2)}\n  start -> join\n}`, 'goal_gate_bypass').map(
        (diagnostic) => diagnostic.message,
      ),
    ).toEqual([
      'Goal gate "test" can be bypassed: the route start -> join -> exit never visits it, and an unvisited gate is not checked.',
    ]);
  });
});

describe('retry_target_exists (spec §7.2)', () => {
  it('warns about a target that names no node, with a suggestion', () => {
    const source = pipeline(
      '  work [prompt="x", retry_target=wrk, fallback_retry_target=nowhere]\n  start -> work -> exit',
    );
    expect(lintRule(source, 'retry_target_exists')).toEqual(['warning 5:34 work', 'warning 5:61 work']);
    expect(diagnosticsOf(source, 'retry_target_exists')[0]?.fix).toBe('Change it to "work".');
  });

  it('accepts existing targets', () => {
    expect(
      lintRule(
        pipeline('  work [prompt="x", retry_target=work]\n  start -> work -> exit'),
        'retry_target_exists',
      ),
    ).toEqual([]);
  });
});

describe('prompt variables (spec §4.5, §9.2)', () => {
  it('goal_variable_undefined: warns when $goal is used without a goal', () => {
    const source = 'digraph G {\n  start [shape=Mdiamond]\n  work [prompt="Do $goal"]\n  start -> work\n}';
    expect(lintRule(source, 'goal_variable_undefined')).toEqual(['warning 3:16 work']);
    expect(
      lintRule(pipeline('  work [prompt="Do $goal"]\n  start -> work -> exit'), 'goal_variable_undefined'),
    ).toEqual([]);
  });

  it('prompt_variable: warns about each other $variable at its place in the prompt', () => {
    const source = pipeline(
      '  work [prompt="Do $task for $goal in $context.repo and $task"]\n  start -> work -> exit',
    );
    expect(lintRule(source, 'prompt_variable')).toEqual(['warning 5:20 work', 'warning 5:39 work']);
    const environment = pipeline(
      '  work [prompt="Write to $KILROY_STAGE_STATUS_PATH"]\n  start -> work -> exit',
    );
    expect(lintRule(environment, 'prompt_variable')).toEqual([]);
    // A fan-in expands $parallel.outputs; another stage does not.
    const outputs = pipeline(
      '  fan [shape=component]\n  a\n  join [shape=tripleoctagon, prompt="Merge $parallel.outputs"]\n  after [prompt="Use $parallel.outputs"]\n  start -> fan -> a -> join -> after -> exit',
    );
    expect(lintRule(outputs, 'prompt_variable')).toEqual(['warning 8:22 after']);
    expect(
      lintRule(pipeline('  work [prompt="Do $goal"]\n  start -> work -> exit'), 'prompt_variable'),
    ).toEqual([]);
  });
});

describe('dead_edge (spec §3.3, issue 19 bug 7)', () => {
  it('names the unconditional edge that the lexical tiebreak never picks', () => {
    const source = pipeline('  a [prompt="a"]\n  b [prompt="b"]\n  start -> a -> b\n  b -> a\n  b -> exit');
    expect(lintRule(source, 'dead_edge')).toEqual(['warning 9:3 b b->exit']);
    expect(diagnosticsOf(source, 'dead_edge')[0]?.message).toBe(
      'Edge b -> exit is never taken: b -> a is also unconditional and always wins, because both have weight 0 and "a" sorts before "exit" (spec §3.3\'s lexical tiebreak).',
    );
  });

  it('names the lighter edge when weights differ', () => {
    const source = pipeline('  start -> a\n  a -> exit [weight=2]\n  a -> b\n  b -> exit');
    expect(lintRule(source, 'dead_edge')).toEqual(['warning 7:3 a a->b']);
  });

  it('accepts labelled edges, conditional edges, human gates and parallel nodes', () => {
    const labelled = pipeline(
      '  start -> a\n  a -> b [label="Fix"]\n  a -> exit [label="Done"]\n  b -> exit',
    );
    expect(lintRule(labelled, 'dead_edge')).toEqual([]);
    const conditional = pipeline(
      '  start -> a\n  a -> b [condition="outcome=fail"]\n  a -> exit\n  b -> exit',
    );
    expect(lintRule(conditional, 'dead_edge')).toEqual([]);
    const gate = pipeline('  ask [shape=hexagon]\n  start -> ask\n  ask -> b\n  ask -> exit\n  b -> exit');
    expect(lintRule(gate, 'dead_edge')).toEqual([]);
  });
});

describe('condition_coverage on context conditions (issue 19 bug 8)', () => {
  it('warns when every edge tests a context value and some value leaves none eligible', () => {
    const source = pipeline(
      '  start -> a\n  a -> b [condition="context.mode=fast"]\n  a -> exit [condition="context.mode=slow"]\n  b -> exit',
    );
    expect(lintRule(source, 'condition_coverage')).toEqual(['warning 5:12 a']);
  });

  it('accepts complementary conditions and a mix with an outcome edge that always holds', () => {
    const complementary = pipeline(
      '  start -> a\n  a -> b [condition="context.mode=fast"]\n  a -> exit [condition="context.mode!=fast"]\n  b -> exit',
    );
    expect(lintRule(complementary, 'condition_coverage')).toEqual([]);
    const negated = pipeline(
      '  start -> a\n  a -> b [condition="context.done"]\n  a -> exit [condition="!context.done || outcome=fail"]\n  b -> exit',
    );
    expect(lintRule(negated, 'condition_coverage')).toEqual([]);
    const withOutcome = pipeline(
      '  start -> a\n  a -> b [condition="context.mode=fast"]\n  a -> exit [condition="outcome=success"]\n  a -> exit [condition="outcome=fail"]\n  b -> exit',
    );
    expect(lintRule(withOutcome, 'condition_coverage')).toEqual([]);
  });
});

describe('context_key_unset (issue 19)', () => {
  it('warns about a tool key no tool node sets, with the key meant', () => {
    const source = pipeline(
      '  t [shape=parallelogram, tool_command="echo PASS"]\n  start -> t\n  t -> exit [condition="context.tool.last_lines=PASS"]\n  t -> t [condition="context.tool.last_line!=PASS"]',
    );
    expect(lintRule(source, 'context_key_unset')).toEqual(['warning 7:25 t->exit']);
    expect(diagnosticsOf(source, 'context_key_unset')[0]?.fix).toBe('Write context.tool.last_line.');
  });

  it('warns about a tool key in a graph without a tool node, and not when one sets it', () => {
    const without = pipeline(
      '  start -> a\n  a -> exit [condition="context.tool.exit_code=0"]\n  a -> a [condition="context.tool.exit_code!=0"]',
    );
    expect(lintRule(without, 'context_key_unset')).toEqual(['warning 6:25 a->exit', 'warning 7:22 a->a']);
    const withTool = without.replace(
      'start -> a',
      'start -> a\n  a [shape=parallelogram, tool_command="true"]',
    );
    expect(lintRule(withTool, 'context_key_unset')).toEqual([]);
  });
});

describe("Fabro's outcome words (issue 19 bug 5)", () => {
  it('flags outcome=succeeded after a diamond too, read as success, an error under strict', () => {
    const source = pipeline(
      '  check [shape=diamond]\n  start -> check\n  check -> exit [condition="outcome=succeeded"]\n  check -> check [condition="outcome=partially_succeeded"]',
    );
    expect(lintRule(source, 'dialect_alias')).toEqual([
      'warning 7:37 check->exit',
      'warning 8:38 check->check',
    ]);
    expect(diagnosticsOf(source, 'dialect_alias')[0]?.fix).toBe('Change it to outcome=success.');
    expect(lintRule(source, 'dialect_alias', { strict: true })[0]).toBe('error 7:37 check->exit');
    expect(lintRule(source, 'condition_coverage')).toEqual(['warning 5:3 check']);
    expect(diagnosticsOf(source, 'condition_coverage')[0]?.message).toContain('none matches outcome=fail');
  });
});
