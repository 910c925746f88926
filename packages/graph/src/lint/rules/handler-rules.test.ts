import { describe, expect, it } from 'vitest';
import { diagnosticsOf, lintRule } from '../../../test/lint-summary.js';

function pipeline(body: string): string {
  return `digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n${body}\n}`;
}

describe('prompt_on_llm_nodes (spec §7.2)', () => {
  it('warns about an LLM node with neither prompt nor label', () => {
    expect(lintRule(pipeline('  work\n  start -> work -> exit'), 'prompt_on_llm_nodes')).toEqual([
      'warning 4:3 work',
    ]);
  });

  it('accepts a label or a prompt', () => {
    const source = pipeline('  a [label="Plan"]\n  b [prompt="Build"]\n  start -> a -> b -> exit');
    expect(lintRule(source, 'prompt_on_llm_nodes')).toEqual([]);
  });
});

describe('start_prompt', () => {
  it('warns about a prompt on the start node at the prompt value', () => {
    const source =
      'digraph G {\n  start [shape=Mdiamond, prompt="Plan the work"]\n  exit [shape=Msquare]\n  start -> exit\n}';
    expect(lintRule(source, 'start_prompt')).toEqual(['warning 2:33 start']);
    expect(lintRule(source, 'inert_attribute')).toEqual([]);
  });

  it('is silent without one', () => {
    expect(lintRule(pipeline('  start -> exit'), 'start_prompt')).toEqual([]);
  });
});

describe('tool_command_required (spec §4.10)', () => {
  it('reports a tool node without tool_command', () => {
    const source = pipeline('  t [shape=parallelogram, label="Test"]\n  start -> t -> exit');
    expect(lintRule(source, 'tool_command_required')).toEqual(['error 4:3 t']);
  });

  it("reads Fabro's script attribute as the tool command, with a dialect_alias warning (issue 19)", () => {
    const source = pipeline('  t [shape=parallelogram, script="cargo test"]\n  start -> t -> exit');
    expect(lintRule(source, 'tool_command_required')).toEqual([]);
    expect(lintRule(source, 'dialect_alias')).toEqual(['warning 4:27 t']);
    expect(lintRule(source, 'dialect_alias', { strict: true })).toEqual(['error 4:27 t']);
  });

  it('accepts a tool node with a command', () => {
    const source = pipeline('  t [shape=parallelogram, tool_command="npm test"]\n  start -> t -> exit');
    expect(lintRule(source, 'tool_command_required')).toEqual([]);
  });
});

describe('human gate rules (spec §4.6)', () => {
  it('human_gate_edges: warns about a gate with no options, a deliberate stop that fails at run time (spec §4.6)', () => {
    const source = pipeline('  start -> exit\n  start -> ask\n  ask [shape=hexagon, label="OK?"]');
    expect(lintRule(source, 'human_gate_edges')).toEqual(['warning 6:3 ask']);
    expect(lintRule(source, 'dead_end')).toEqual([]);
  });

  it('human_gate_labels: reports an unlabelled option at its edge', () => {
    const source = pipeline(
      '  ask [shape=hexagon]\n  start -> ask\n  ask -> exit [label="[A] Approve"]\n  ask -> fix\n  fix -> ask',
    );
    expect(lintRule(source, 'human_gate_labels')).toEqual(['warning 7:3 ask ask->fix']);
  });

  it('human_gate_accelerators: reports options sharing a key at the second label', () => {
    const source = pipeline(
      '  ask [shape=hexagon]\n  start -> ask\n  ask -> exit [label="[A] Approve"]\n  ask -> fix [label="Amend"]\n  fix -> ask',
    );
    expect(lintRule(source, 'human_gate_accelerators')).toEqual(['warning 7:21 ask ask->fix']);
    expect(diagnosticsOf(source, 'human_gate_accelerators')[0]?.message).toBe(
      'Options "[A] Approve" and "Amend" of human gate "ask" share the accelerator key "A".',
    );
  });

  it('human gate rules are silent for distinct labelled options', () => {
    const source = pipeline(
      '  ask [shape=hexagon, "human.default_choice"=fix]\n  start -> ask\n  ask -> exit [label="[A] Approve"]\n  ask -> fix [label="[F] Fix"]\n  fix -> ask',
    );
    for (const rule of [
      'human_gate_edges',
      'human_gate_labels',
      'human_gate_accelerators',
      'human_default_choice',
    ]) {
      expect(lintRule(source, rule)).toEqual([]);
    }
  });

  it('human_default_choice: reports a default that matches no option, at its value', () => {
    const source = pipeline(
      '  ask [shape=hexagon, human.default_choice=skip]\n  start -> ask\n  ask -> exit [label="[A] Approve"]\n  ask -> fix [label="[F] Fix"]\n  fix -> ask',
    );
    expect(lintRule(source, 'human_default_choice')).toEqual(['warning 4:44 ask']);
  });

  it('human_default_choice: accepts a label or an accelerator key', () => {
    for (const choice of ['"[A] Approve"', 'A', 'exit']) {
      const source = pipeline(
        `  ask [shape=hexagon, human.default_choice=${choice}]\n  start -> ask\n  ask -> exit [label="[A] Approve"]`,
      );
      expect(lintRule(source, 'human_default_choice')).toEqual([]);
    }
  });
});

describe('manager_child_dotfile (spec §4.11)', () => {
  it('reports a manager loop without a child pipeline', () => {
    const source = pipeline('  boss [shape=house]\n  start -> boss -> exit');
    expect(lintRule(source, 'manager_child_dotfile')).toEqual(['error 4:3 boss']);
  });

  it('says what to write instead for a manager that supervises stages of its own graph (issue 33)', () => {
    const source = pipeline(
      '  boss [shape=house, manager.actions="observe,steer,wait"]\n  implement [prompt="Implement"]\n  test [prompt="Test"]\n  report [prompt="Report"]\n  start -> boss -> implement -> test -> exit\n  boss -> report [weight=0]\n  report -> exit',
    );
    const [diagnostic] = diagnosticsOf(source, 'manager_child_dotfile');
    expect(diagnostic?.message).toBe(
      'Manager loop "boss" has no stack.child_dotfile, so there is no child pipeline to supervise. Its edges lead to stages of this graph ("implement", "report"), as in runners where a manager supervises the stages after it; here a manager supervises a pipeline of its own file, run as a child while it observes, steers and waits.',
    );
    expect(diagnostic?.fix).toBe(
      'Move the supervised stages into child.dot (with its own start and exit node) and add "stack.child_dotfile"="child.dot" to "boss"; keep in this graph the edges for what happens after the child is done.',
    );
  });

  it('accepts stack.child_dotfile on the node or the graph', () => {
    expect(
      lintRule(
        pipeline('  boss [shape=house, stack.child_dotfile="child.dot"]\n  start -> boss -> exit'),
        'manager_child_dotfile',
      ),
    ).toEqual([]);
    expect(
      lintRule(
        pipeline('  "stack.child_dotfile"="child.dot"\n  boss [shape=house]\n  start -> boss -> exit'),
        'manager_child_dotfile',
      ),
    ).toEqual([]);
  });
});

describe('subgraph_ref (spec §9.4)', () => {
  it('reports a subgraph node without graph_ref, and knows the subgraph type, graph_ref and var.* keys', () => {
    const source = pipeline(
      '  review [type="subgraph", graph_ref="review.dot", var.diff_cmd="git diff"]\n  empty [type="subgraph", graph_ref=" "]\n  start -> review -> empty -> exit',
    );
    expect(lintRule(source, 'subgraph_ref')).toEqual(['error 5:37 empty']);
    expect(diagnosticsOf(source, 'subgraph_ref')[0]).toMatchObject({
      message: 'Subgraph node "empty" has no graph_ref, so there is no pipeline to run.',
      fix: 'Add graph_ref="child.dot" to "empty" (a path relative to this DOT file).',
    });
    expect(lintRule(source, 'type_known')).toEqual([]);
    expect(lintRule(source, 'unknown_attribute')).toEqual([]);
    expect(lintRule(source, 'prompt_on_llm_nodes')).toEqual([]);
  });

  it('keeps var.* unknown on other nodes and graph_ref inert on them', () => {
    const source = pipeline('  work [prompt="w", var.x="1", graph_ref="a.dot"]\n  start -> work -> exit');
    expect(lintRule(source, 'unknown_attribute')).toEqual(['warning 4:21 work']);
    expect(lintRule(source, 'inert_attribute')).toEqual(['warning 4:32 work']);
  });
});

describe('parallel rules (docs/architecture.md "Parallel fan-out")', () => {
  const joined = pipeline(
    '  fan [shape=component]\n  join [shape=tripleoctagon]\n  start -> fan\n  fan -> a -> join\n  fan -> b -> join\n  join -> exit',
  );

  it('parallel_fan_in: reports a branch that never reaches a fan-in', () => {
    const source = pipeline(
      '  fan [shape=component]\n  join [shape=tripleoctagon]\n  start -> fan\n  fan -> a -> join\n  fan -> b -> exit\n  join -> exit',
    );
    expect(lintRule(source, 'parallel_fan_in')).toEqual(['warning 8:3 fan fan->b']);
    expect(lintRule(joined, 'parallel_fan_in')).toEqual([]);
  });

  it('fan_in_without_parallel: reports a fan-in after no parallel node', () => {
    const source = pipeline('  join [shape=tripleoctagon]\n  start -> join -> exit');
    expect(lintRule(source, 'fan_in_without_parallel')).toEqual(['warning 4:3 join']);
    expect(lintRule(joined, 'fan_in_without_parallel')).toEqual([]);
  });

  it('join_policy_options: requires join_k for k_of_n and bounds it by the branch count', () => {
    const missing = joined.replace('fan [shape=component]', 'fan [shape=component, join_policy=k_of_n]');
    expect(lintRule(missing, 'join_policy_options')).toEqual(['error 4:37 fan']);
    const tooMany = joined.replace(
      'fan [shape=component]',
      'fan [shape=component, join_policy=k_of_n, join_k=3]',
    );
    expect(lintRule(tooMany, 'join_policy_options')).toEqual(['warning 4:52 fan']);
    const ignored = joined.replace('fan [shape=component]', 'fan [shape=component, join_k=1]');
    expect(lintRule(ignored, 'join_policy_options')).toEqual(['warning 4:32 fan']);
    const fine = joined.replace(
      'fan [shape=component]',
      'fan [shape=component, join_policy=k_of_n, join_k=2]',
    );
    expect(lintRule(fine, 'join_policy_options')).toEqual([]);
  });
});

describe('text gates (human.input=text)', () => {
  const source = pipeline(
    '  ask [shape=hexagon, label="Why?", human.input=text, human.context_key="context.why"]\n  start -> ask -> exit',
  );

  it('knows human.input and human.context_key', () => {
    expect(lintRule(source, 'unknown_attribute')).toEqual([]);
    expect(lintRule(source, 'inert_attribute')).toEqual([]);
  });

  it('does not ask for option labels or accelerator keys', () => {
    expect(lintRule(source, 'human_gate_labels')).toEqual([]);
    expect(lintRule(source, 'human_gate_accelerators')).toEqual([]);
  });

  it('types human.input', () => {
    const bad = pipeline(
      '  ask [shape=hexagon, human.input=essay]\n  start -> ask\n  ask -> exit [label="[D] Done"]',
    );
    expect(lintRule(bad, 'attribute_type')).toEqual(['error 4:35 ask']);
  });
});

describe('prompt on a manager loop (its steering message)', () => {
  it('is not inert', () => {
    const source = pipeline(
      '  boss [shape=house, stack.child_dotfile="c.dot", prompt="Focus on tests"]\n  start -> boss -> exit',
    );
    expect(lintRule(source, 'inert_attribute')).toEqual([]);
  });
});

describe('fan_in_mode (docs/architecture.md "Parallel results")', () => {
  const fanIn = (attributes: string) =>
    `digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  fork [shape=component]\n  a [prompt="A"]\n  b [prompt="B"]\n  join [shape=tripleoctagon${attributes}]\n  start -> fork\n  fork -> a -> join\n  fork -> b -> join\n  join -> exit\n}`;

  it('refuses fan_in_mode=merge without a prompt, naming the fix', () => {
    expect(lintRule(fanIn(', fan_in_mode=merge'), 'fan_in_mode')).toEqual(['error 7:3 join']);
    expect(diagnosticsOf(fanIn(', fan_in_mode=merge'), 'fan_in_mode')[0]?.fix).toContain('$parallel.outputs');
  });

  it('accepts merge with a prompt, and pick', () => {
    expect(lintRule(fanIn(', fan_in_mode=merge, prompt="Merge: $parallel.outputs"'), 'fan_in_mode')).toEqual(
      [],
    );
    expect(lintRule(fanIn(', fan_in_mode=pick'), 'fan_in_mode')).toEqual([]);
  });

  it('types the value: only pick or merge', () => {
    expect(lintRule(fanIn(', fan_in_mode=combine'), 'attribute_type')).toEqual(['error 7:42 join']);
  });
});

describe('join_merge (README "Workspaces")', () => {
  const block = (branchA: string, joinAttributes = '') =>
    `digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  fork [shape=component]\n  ${branchA}\n  b [shape=diamond]\n  join [shape=tripleoctagon${joinAttributes}]\n  start -> fork\n  fork -> a -> join\n  fork -> b -> join\n  join -> exit\n}`;

  it('warns at the fan-in when branches run LLM or tool stages and no merge policy is declared', () => {
    expect(lintRule(block('a [prompt="A"]'), 'join_merge')).toEqual(['warning 7:3 join']);
    expect(lintRule(block('a [shape=parallelogram, tool_command="make"]'), 'join_merge')).toEqual([
      'warning 7:3 join',
    ]);
    const [diagnostic] = diagnosticsOf(block('a [prompt="A"]'), 'join_merge');
    expect(diagnostic?.message).toContain('"a"');
    expect(diagnostic?.fix).toContain('join_merge="git"');
  });

  it('is silent once join_merge is declared, or when no branch stage can change files', () => {
    expect(lintRule(block('a [prompt="A"]', ', join_merge=pick'), 'join_merge')).toEqual([]);
    expect(lintRule(block('a [prompt="A"]', ', join_merge=none'), 'join_merge')).toEqual([]);
    expect(lintRule(block('a [shape=diamond]'), 'join_merge')).toEqual([]);
  });

  it('says items, not branches, for a foreach, and is silent for a graph that runs in place', () => {
    const foreach = (graphAttributes: string) =>
      `digraph G {\n  graph [state="files: append"${graphAttributes}]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  each [type="foreach", over="files", as="file"]\n  lint [shape=parallelogram, tool_command="eslint $item.file"]\n  join [shape=tripleoctagon]\n  start -> each -> lint -> join -> exit\n}`;
    const [diagnostic] = diagnosticsOf(foreach(''), 'join_merge');
    expect(diagnostic?.message).toBe(
      'The items of foreach node "each" run stages that may change files ("lint"), and fan-in "join" does not say how their files come together: in a git workspace each item works in a worktree of its own and the fan-in merges them with git.',
    );
    expect(diagnostic?.fix).toBe(
      'Add join_merge="git" (merge every successful item; a conflict fails the fan-in), join_merge="pick" (the selected item\'s files) or join_merge="none" to "join".',
    );
    // In place every item and branch works in the one directory: the fan-in merges nothing, join_merge is inert.
    expect(lintRule(foreach(', workspace="in-place"'), 'join_merge')).toEqual([]);
    expect(
      lintRule(
        block('a [prompt="A"]').replace('digraph G {', 'digraph G {\n  graph [workspace="in-place"]'),
        'join_merge',
      ),
    ).toEqual([]);
    expect(lintRule(foreach(', workspace="copy"'), 'join_merge')).toEqual(['warning 7:3 join']);
  });

  it('types the value and the graph attribute workspace', () => {
    expect(lintRule(block('a [prompt="A"]', ', join_merge=octopus'), 'attribute_type')).toEqual([
      'error 7:41 join',
    ]);
    const source = `digraph G {\n  graph [workspace="worktree"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n}`;
    expect(lintRule(source, 'attribute_type')).toHaveLength(1);
    expect(lintRule(source.replace('worktree', 'copy'), 'attribute_type')).toEqual([]);
  });
});
