import { describe, expect, it } from 'vitest';
import { diagnosticsOf, lintRule } from '../../../test/lint-summary.js';
import { prepareGraph } from '../../prepare-graph.js';

function pipeline(graphAttributes: string, body: string): string {
  return `digraph G {\n  graph [${graphAttributes}]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n${body}\n}`;
}

describe('inputs_declaration (README "Typed data")', () => {
  it('reports an unknown type in inputs at the type, with the fix', () => {
    const source = pipeline('inputs="repo: string, issue: int"', '  start -> exit');
    expect(lintRule(source, 'inputs_declaration')).toEqual(['error 2:39']);
    const [diagnostic] = diagnosticsOf(source, 'inputs_declaration');
    expect(diagnostic?.message).toBe(
      'Graph attribute inputs of "G": "int" is not a type: write one of string, integer, number, boolean, object, any, optionally followed by [] for a list.',
    );
  });

  it('reports every bad entry of inputs, outputs and state in one pass, each at its place', () => {
    const source = pipeline(
      'inputs="repo: strng, issue: int, 2x: string, labels?: string[], repo: string", outputs="a b, ok,, c d", state="x: last, y: append, z: first"',
      '  start -> exit',
    );
    expect(diagnosticsOf(source, 'inputs_declaration').map((found) => found.message)).toEqual([
      'Graph attribute inputs of "G": "strng" is not a type: write one of string, integer, number, boolean, object, any, optionally followed by [] for a list.',
      'Graph attribute inputs of "G": "int" is not a type: write one of string, integer, number, boolean, object, any, optionally followed by [] for a list.',
      'Graph attribute inputs of "G": "2x" is not an input name (a letter or _, then letters, digits and _).',
      'Graph attribute inputs of "G": input "repo" is declared twice.',
      'Graph attribute outputs of "G": "a b" is not a context key (names of letters, digits and _, joined by dots).',
      'Graph attribute outputs of "G": an empty entry (two commas, or a comma at the end).',
      'Graph attribute outputs of "G": "c d" is not a context key (names of letters, digits and _, joined by dots).',
      'Graph attribute state of "G": "x: last" does not name a merge rule: write "x: replace", "x: append" or "x: merge_object".',
      'Graph attribute state of "G": "z: first" does not name a merge rule: write "z: replace", "z: append" or "z: merge_object".',
    ]);
    expect(lintRule(source, 'inputs_declaration')).toEqual([
      'error 2:24',
      'error 2:38',
      'error 2:43',
      'error 2:74',
      'error 2:98',
      'error 2:106',
      'error 2:108',
      'error 2:121',
      'error 2:141',
    ]);
  });

  it('reports a malformed outputs key, and accepts good declarations and schema files', () => {
    expect(lintRule(pipeline('outputs="summary, bad key"', '  start -> exit'), 'inputs_declaration')).toEqual(
      ['error 2:28'],
    );
    expect(
      lintRule(
        pipeline(
          'inputs="repo: string, labels?: string[]", outputs="summary, review.verdict"',
          '  start -> exit',
        ),
        'inputs_declaration',
      ),
    ).toEqual([]);
    expect(lintRule(pipeline('inputs="schemas/in.json"', '  start -> exit'), 'inputs_declaration')).toEqual(
      [],
    );
  });

  it('types graph.settings: the compact declaration and the output keys', () => {
    const { graph } = prepareGraph(pipeline('inputs="repo: string", outputs="summary"', '  start -> exit'));
    expect(graph?.settings.inputs).toMatchObject({ kind: 'fields', fields: [{ name: 'repo' }] });
    expect(graph?.settings.outputs).toEqual(['summary']);
  });
});

describe('input_variable (README "Typed data")', () => {
  it('reports $input.<name> in a prompt or tool_command that the inputs do not declare, at the reference', () => {
    const source = pipeline(
      'inputs="repo: string"',
      '  plan [prompt="Review $input.repo issue $input.issue"]\n  check [shape=parallelogram, tool_command="gh pr view $input.pr"]\n  start -> plan -> check -> exit',
    );
    expect(lintRule(source, 'input_variable')).toEqual(['error 5:42 plan', 'error 6:56 check']);
    expect(diagnosticsOf(source, 'input_variable')[0]?.message).toBe(
      'The prompt of "plan" uses $input.issue, but the graph\'s inputs do not declare "issue" (they declare "repo").',
    );
    expect(lintRule(source, 'prompt_variable')).toEqual([]);
  });

  it('reports a reference in a graph without inputs, and trusts a schema file', () => {
    const body = '  plan [prompt="Review $input.repo"]\n  start -> plan -> exit';
    expect(lintRule(pipeline('goal="x"', body), 'input_variable')).toEqual(['error 5:24 plan']);
    expect(lintRule(pipeline('inputs="in.json"', body), 'input_variable')).toEqual([]);
    expect(lintRule(pipeline('inputs="repo: string"', body), 'input_variable')).toEqual([]);
  });
});

describe('inputs_declaration: the forms of other runners', () => {
  it("warns (not an error) at Kilroy's untyped inputs and file outputs, which the run ignores", () => {
    const source = pipeline('inputs="topic", outputs="combined-output.md"', '  start -> exit');
    expect(lintRule(source, 'inputs_declaration')).toEqual(['warning 2:18', 'warning 2:35']);
    expect(diagnosticsOf(source, 'inputs_declaration')[0]?.message).toBe(
      'Graph attribute inputs of "G": "topic" is not "name: type" (e.g. repo: string) (read as another runner\'s documentation: no inputs are checked or expanded).',
    );
    const { graph } = prepareGraph(source);
    expect(graph?.settings.inputs).toBeUndefined();
    expect(graph?.settings.outputs).toEqual([]);
  });
});

describe('output_schema (README "Typed data")', () => {
  it('reports a malformed output_schema or out_map at the mistake, and accepts the three forms', () => {
    const source = pipeline(
      'goal="x"',
      '  a [prompt="p", output_schema="verdict: strng"]\n  b [prompt="p", output_schema="{not json}"]\n  c [prompt="p", out_map="verdict => review.verdict"]\n  d [prompt="p", output_schema="verdict: string", out_map="verdict -> review.verdict"]\n  e [shape=parallelogram, tool_command="echo {}", output_schema="schemas/e.json"]\n  f [prompt="p", output_schema="{\\"type\\": \\"object\\"}"]\n  start -> a -> b -> c -> d -> e -> f -> exit',
    );
    expect(lintRule(source, 'output_schema')).toEqual(['error 5:42 a', 'error 6:33 b', 'error 7:27 c']);
    expect(diagnosticsOf(source, 'output_schema')[2]?.message).toBe(
      'The out_map of "c": "verdict => review.verdict" is not "field -> context.key" (e.g. verdict -> review.verdict).',
    );
    expect(lintRule(source, 'inert_attribute')).toEqual([]);
  });
});

describe('state (README "Typed data")', () => {
  it('types graph.settings.state and reports an unknown merge rule at the entry', () => {
    const good = prepareGraph(
      pipeline('state="findings: append, summary: replace, scores: merge_object"', '  start -> exit'),
    );
    expect(good.graph?.settings.state).toEqual({
      findings: 'append',
      summary: 'replace',
      scores: 'merge_object',
    });
    const source = pipeline('state="findings: append, summary: last"', '  start -> exit');
    expect(lintRule(source, 'inputs_declaration')).toEqual(['error 2:35']);
    expect(diagnosticsOf(source, 'inputs_declaration')[0]?.message).toBe(
      'Graph attribute state of "G": "summary: last" does not name a merge rule: write "summary: replace", "summary: append" or "summary: merge_object".',
    );
  });
});

describe('foreach (README "Typed data")', () => {
  const each = (attributes: string, rest = '  start -> each -> work -> join -> exit') =>
    `  each [type="foreach", ${attributes}]\n  work [shape=parallelogram, tool_command="echo $item.item"]\n  join [shape=tripleoctagon]\n${rest}`;

  it('accepts a foreach over a declared list, collecting into a declared list, its body ending at a fan-in', () => {
    const source = pipeline(
      'state="files: append, results: append"',
      each('over="state.files", collect="results"'),
    );
    expect(lintRule(source, 'foreach')).toEqual([]);
    expect(lintRule(source, 'attribute_type')).toEqual([]);
    expect(lintRule(source, 'unknown_attribute')).toEqual([]);
    // The collect field is written by the foreach.
    const output = pipeline(
      'state="files: append, results: append", outputs="results, foreach.success_count"',
      each('over="state.files", collect="results"'),
    );
    expect(lintRule(output, 'output_unwritten')).toEqual([]);
    expect(lintRule(pipeline('inputs="files: string[]"', each('over="input.files"')), 'foreach')).toEqual([]);
  });

  it('warns when over is not a declared list, naming the declaration to add', () => {
    const source = pipeline('goal="x"', each('over="state.files"'));
    expect(lintRule(source, 'foreach')).toEqual(['warning 5:30 each']);
    expect(diagnosticsOf(source, 'foreach')[0]?.fix).toBe('Declare it: graph [state="files: append"].');
    expect(
      diagnosticsOf(pipeline('inputs="files: string"', each('over="input.files"')), 'foreach')[0]?.fix,
    ).toBe('Declare the input as a list: graph [inputs="files: string[]"].');
  });

  it('names the declared list a misspelled over was meant to be, as an edit', () => {
    const source = pipeline('state="files: append, notes: replace"', each('over="state.flies"'));
    const [found] = diagnosticsOf(source, 'foreach');
    expect(found?.message).toBe(
      'Foreach node "each" goes over "flies", which the graph does not declare as a list (a state field with the append rule, or a list input): the run fails there unless the context holds a list by then.',
    );
    expect(found?.fix).toBe(
      'Did you mean over="state.files"? Otherwise declare it: graph [state="flies: append"].',
    );
    expect(found?.edits?.map((edit) => edit.text)).toEqual(['"state.files"']);
    const input = pipeline('inputs="files: string[]"', each('over="input.flies"'));
    expect(diagnosticsOf(input, 'foreach')[0]?.fix).toBe(
      'Did you mean over="input.files"? Otherwise declare the input as a list: graph [inputs="flies: string[]"].',
    );
    // A state key meant as an input, and the other way round.
    expect(diagnosticsOf(pipeline('inputs="files: string[]"', each('over="files"')), 'foreach')[0]?.fix).toBe(
      'Did you mean over="input.files"? Otherwise declare it: graph [state="files: append"].',
    );
    // Nothing near: no guess.
    expect(diagnosticsOf(pipeline('state="files: append"', each('over="reviews"')), 'foreach')[0]?.fix).toBe(
      'Declare it: graph [state="reviews: append"].',
    );
  });

  it('warns that max_parallel has no effect in serial mode, at max_parallel', () => {
    const source = pipeline('state="files: append"', each('over="files", mode=serial, max_parallel=8'));
    expect(lintRule(source, 'foreach')).toEqual(['warning 5:52 each']);
    const [found] = diagnosticsOf(source, 'foreach');
    expect(found?.message).toBe(
      'Foreach node "each" runs its items one after another (mode=serial), so max_parallel=8 has no effect.',
    );
    expect(found?.fix).toBe(
      'Remove max_parallel from "each", or write mode=parallel to run up to 8 items at once.',
    );
    expect(
      lintRule(pipeline('state="files: append"', each('over="files", max_parallel=8')), 'foreach'),
    ).toEqual([]);
    // A default for every node (node [max_parallel=...]) is not written on the foreach: nothing to say.
    const inherited = pipeline(
      'state="files: append"',
      `  node [max_parallel=2]\n${each('over="files", mode=serial')}`,
    );
    expect(lintRule(inherited, 'foreach')).toEqual([]);
  });

  it('reports a missing over, a missing join, extra edges and an undeclared collect field as errors', () => {
    expect(lintRule(pipeline('goal="x"', each('mode=serial')), 'foreach')).toEqual(['error 5:3 each']);
    const noJoin = pipeline(
      'state="files: append"',
      '  each [type="foreach", over="files"]\n  work [shape=parallelogram, tool_command="true"]\n  start -> each -> work -> exit',
    );
    expect(diagnosticsOf(noJoin, 'foreach').map((diagnostic) => diagnostic.message)).toEqual([
      'The body of foreach node "each" never reaches a fan-in node (shape=tripleoctagon), so its items have nowhere to join.',
    ]);
    const twoEdges = pipeline(
      'state="files: append"',
      each('over="files"', '  start -> each -> work -> join -> exit\n  each -> exit'),
    );
    expect(diagnosticsOf(twoEdges, 'foreach')[0]?.message).toBe(
      'Foreach node "each" has 2 outgoing edges; it needs exactly one, to the first node of its body.',
    );
    const collect = pipeline(
      'state="files: append, results: replace"',
      each('over="files", collect="results"'),
    );
    expect(diagnosticsOf(collect, 'foreach')[0]?.message).toBe(
      'Foreach node "each" collects into "results", which is not a declared list field (state="results: append").',
    );
  });

  it('reports $item.<name> that no enclosing foreach binds as an error, naming what the foreach binds', () => {
    const source = pipeline(
      'state="files: append"',
      '  each [type="foreach", over="files", as="file"]\n  work [prompt="Review $item.file and $item.fiel"]\n  lint [shape=parallelogram, tool_command="eslint $item.fiel"]\n  join [shape=tripleoctagon]\n  after [shape=parallelogram, tool_command="echo $item.file"]\n  start -> each -> work -> lint -> join -> after -> exit',
    );
    const found = diagnosticsOf(source, 'foreach');
    expect(found.map((diagnostic) => `${diagnostic.severity} ${diagnostic.message}`)).toEqual([
      'error The prompt of "work" uses $item.fiel, but the foreach around "work" binds $item.file (foreach "each"), not "fiel": the model would see "$item.fiel" as written.',
      'error The tool_command of "lint" uses $item.fiel, but the foreach around "lint" binds $item.file (foreach "each"), not "fiel": the command would run with an empty value there.',
      'error The tool_command of "after" uses $item.file, but "after" is in no foreach body (the nodes between a foreach node and its fan-in), so no item is bound there: the command would run with an empty value there.',
    ]);
    expect(found.map((diagnostic) => diagnostic.fix)).toEqual([
      'The foreach "each" binds $item.file; did you mean $item.file?',
      'The foreach "each" binds $item.file; did you mean $item.file?',
      'Use $item.file only between a foreach node and its fan-in (here foreach "each" binds $item.file, up to "join"); after the fan-in, read the items\' results from a declared state field or the foreach\'s collect list.',
    ]);
    expect(lintRule(source, 'foreach')).toEqual(['error 6:39 work', 'error 7:51 lint', 'error 9:50 after']);
    // The typo's fix is an edit to the bound name.
    expect(found[1]?.edits?.map((edit) => edit.text)).toEqual(['$item.file']);
    expect(found[2]?.edits).toBeUndefined();
    expect(lintRule(source, 'prompt_variable')).toEqual([]);
    // A name far from every bound one gets no guess, but still the bound names.
    const far = pipeline(
      'state="files: append"',
      '  each [type="foreach", over="files"]\n  work [shape=parallelogram, tool_command="echo $item.path"]\n  join [shape=tripleoctagon]\n  start -> each -> work -> join -> exit',
    );
    expect(diagnosticsOf(far, 'foreach').map((diagnostic) => diagnostic.fix)).toEqual([
      'The foreach "each" binds $item.item: write $item.item, or set as="path" on "each".',
    ]);
    // What a sub-pipeline node passes on is checked too (once: passed to the child as written).
    const subgraph = pipeline(
      'state="files: append"',
      '  each [type="foreach", over="files", as="file"]\n  one [type="subgraph", graph_ref="one.dot", input.path="$item.fiel", var.name="$item.file"]\n  join [shape=tripleoctagon]\n  start -> each -> one -> join -> exit',
    );
    expect(
      diagnosticsOf(subgraph, 'foreach').map((diagnostic) => [diagnostic.message, diagnostic.fix]),
    ).toEqual([
      [
        'The input.path of "one" uses $item.fiel, but the foreach around "one" binds $item.file (foreach "each"), not "fiel": the node would fail when it runs (the sub-pipeline cannot be given "$item.fiel").',
        'The foreach "each" binds $item.file; did you mean $item.file?',
      ],
    ]);
    // Without foreach nodes the graph may be a sub-pipeline run by a foreach body.
    const child = pipeline(
      'goal="x"',
      '  say [shape=parallelogram, tool_command="echo $item.f"]\n  start -> say -> exit',
    );
    expect(lintRule(child, 'foreach')).toEqual([]);
  });

  it('reports unknown mode and on_item_error values (attribute_type)', () => {
    const source = pipeline('state="files: append"', each('over="files", mode=fast, on_item_error=ignore'));
    expect(diagnosticsOf(source, 'attribute_type').map((diagnostic) => diagnostic.message)).toEqual([
      expect.stringContaining('one of parallel, serial'),
      expect.stringContaining('one of fail, collect, skip'),
    ]);
  });
});

describe('out_map_state (README "Typed data")', () => {
  it('warns at an out_map key the declared state lacks, naming a near declared field', () => {
    const source = pipeline(
      'state="findings: append, summary: replace"',
      '  a [prompt="p", output_schema="items: string[], text: string", out_map="items -> findngs, text -> summary"]\n  b [prompt="p", output_schema="n: integer", out_map="n -> review.score"]\n  start -> a -> b -> exit',
    );
    expect(lintRule(source, 'out_map_state')).toEqual(['warning 5:83 a', 'warning 6:60 b']);
    const [typo, other] = diagnosticsOf(source, 'out_map_state');
    expect(typo?.message).toBe(
      'The out_map of "a" writes "findngs", which the graph\'s state does not declare (it declares "findings", "summary").',
    );
    expect(typo?.fix).toBe(
      'Did you mean "findings"? Map the field to it, or add "findngs: replace" to the graph\'s state.',
    );
    expect(other?.fix).toContain(
      'add "review.score: replace" (or append, merge_object) to the graph\'s state',
    );
  });

  it('says nothing without a state declaration or when every key is declared', () => {
    const body =
      '  a [prompt="p", output_schema="text: string", out_map="text -> summary"]\n  start -> a -> exit';
    expect(lintRule(pipeline('goal="x"', body), 'out_map_state')).toEqual([]);
    expect(lintRule(pipeline('state="summary: replace"', body), 'out_map_state')).toEqual([]);
  });
});

describe('out_map_conflict (README "Declared state and parallel joins")', () => {
  const fanOut = (graphAttributes: string) =>
    pipeline(
      graphAttributes,
      [
        '  fork [shape=component]',
        '  a [prompt="p", output_schema="v: string", out_map="v -> verdict"]',
        '  b [prompt="p", output_schema="v: string", out_map="v -> verdict"]',
        '  c [prompt="p", output_schema="v: string", out_map="v -> c_verdict"]',
        '  join [shape=tripleoctagon]',
        '  start -> fork',
        '  fork -> a -> join',
        '  fork -> b -> join',
        '  fork -> c -> join',
        '  join -> exit',
      ].join('\n'),
    );

  it('warns once per key when two branches map to the same undeclared key, at the second writer', () => {
    const withState = fanOut('state="findings: append"');
    expect(lintRule(withState, 'out_map_conflict')).toEqual(['warning 7:59 b']);
    const [diagnostic] = diagnosticsOf(withState, 'out_map_conflict');
    expect(diagnostic?.message).toBe(
      'Branches of parallel node "fork" all write "verdict" through out_map ("a", "b"), and the graph\'s state does not declare it: fan-in "join" fails when they write different values.',
    );
    expect(diagnostic?.fix).toBe(
      'Declare how the values merge, e.g. state="verdict: append" (or replace, merge_object), or map each branch\'s field to a key of its own.',
    );
    // The shared key is this rule's finding; out_map_state reports only c's own undeclared key.
    expect(lintRule(withState, 'out_map_state')).toEqual(['warning 8:59 c']);
    const without = diagnosticsOf(fanOut('goal="x"'), 'out_map_conflict');
    expect(without.map((found) => found.message)).toEqual([
      expect.stringContaining('fan-in "join" keeps the selected branch\'s value and drops the others\''),
    ]);
  });

  it('says nothing once state declares the key, or for writes in one branch', () => {
    expect(lintRule(fanOut('state="verdict: append"'), 'out_map_conflict')).toEqual([]);
    const sequential = pipeline(
      'goal="x"',
      '  a [prompt="p", output_schema="v: string", out_map="v -> verdict"]\n  b [prompt="p", output_schema="v: string", out_map="v -> verdict"]\n  start -> a -> b -> exit',
    );
    expect(lintRule(sequential, 'out_map_conflict')).toEqual([]);
  });
});

describe('output_unwritten (README "Typed data")', () => {
  it('warns at an outputs key no stage writes, and accepts mapped, node and handler keys', () => {
    const source = pipeline(
      'outputs="summary, review.verdict, plan.text, check.tool.output, tool.output, last_response, sumary, report.body"',
      [
        '  plan [prompt="p", output_schema="text: string"]',
        '  review [prompt="p", output_schema="verdict: string, text: string", out_map="text -> summary, verdict -> review.verdict"]',
        '  check [shape=parallelogram, tool_command="true"]',
        '  write [prompt="p", output_schema="r: object", out_map="r -> report"]',
        '  start -> plan -> review -> check -> write -> exit',
      ].join('\n'),
    );
    expect(lintRule(source, 'output_unwritten')).toEqual(['warning 2:102']);
    const [diagnostic] = diagnosticsOf(source, 'output_unwritten');
    expect(diagnostic?.message).toBe(
      'Graph attribute outputs of "G" names "sumary", which no stage writes (no out_map maps a field to it, and it is no "<node id>.<field>" key): the run\'s output.json will lack it unless an agent writes it through status.json.',
    );
    expect(diagnostic?.fix).toContain('out_map="summary -> sumary"');
  });

  it("says nothing without outputs, for another runner's file outputs, or where a sub-pipeline or plug-in may write it", () => {
    expect(lintRule(pipeline('goal="x"', '  start -> exit'), 'output_unwritten')).toEqual([]);
    expect(
      lintRule(
        pipeline(
          'outputs="summary"',
          '  child [type="subgraph", graph_ref="child.dot"]\n  start -> child -> exit',
        ),
        'output_unwritten',
      ),
    ).toEqual([]);
    const plugin = pipeline('outputs="summary"', '  ship [type="deploy"]\n  start -> ship -> exit');
    expect(lintRule(plugin, 'output_unwritten', { knownHandlerTypes: ['deploy'] })).toEqual([]);
    expect(lintRule(pipeline('outputs="combined-output.md"', '  start -> exit'), 'output_unwritten')).toEqual(
      [],
    );
  });
});

describe('out_map_field (README "Typed data", issue 29)', () => {
  it('reports an out_map field its stage output_schema does not have, at the field, with the near property', () => {
    const source = pipeline(
      'outputs="summary"',
      '  plan [prompt="p", output_schema="summary: string", out_map="sumary -> summary"]\n  start -> plan -> exit',
    );
    expect(lintRule(source, 'out_map_field')).toEqual(['error 5:63 plan']);
    const [diagnostic] = diagnosticsOf(source, 'out_map_field');
    expect(diagnostic?.message).toBe(
      'The out_map of "plan" maps the field "sumary", which its output_schema does not have (it has "summary"): "summary" would never be set.',
    );
    expect(diagnostic?.fix).toBe('Did you mean "summary"? Write out_map="summary -> summary".');
    expect(diagnostic?.edits?.map((edit) => edit.text)).toEqual(['summary']);
  });

  it('follows a dotted field into nested properties, and trusts schema files and open nested objects', () => {
    const nested = pipeline(
      'goal="x"',
      `  plan [prompt="p", output_schema="{\\"type\\":\\"object\\",\\"properties\\":{\\"meta\\":{\\"type\\":\\"object\\",\\"properties\\":{\\"title\\":{\\"type\\":\\"string\\"}}},\\"free\\":{\\"type\\":\\"object\\"}}}", out_map="meta.title -> t, meta.titel -> u, free.any -> v, nothing -> w"]\n  start -> plan -> exit`,
    );
    expect(diagnosticsOf(nested, 'out_map_field').map((found) => found.message)).toEqual([
      'The out_map of "plan" maps the field "meta.titel", which its output_schema does not have (it has "meta.title"): "u" would never be set.',
      'The out_map of "plan" maps the field "nothing", which its output_schema does not have (it has "meta", "free"): "w" would never be set.',
    ]);
    const file = pipeline(
      'goal="x"',
      '  plan [prompt="p", output_schema="plan.schema.json", out_map="anything -> a"]\n  start -> plan -> exit',
    );
    expect(lintRule(file, 'out_map_field')).toEqual([]);
  });
});

describe('output_unwritten: <node id>.<field> of a structured stage (issue 29)', () => {
  it('warns at a "<node>.<field>" key the node does not write: a field its output_schema lacks, or any under out_map', () => {
    const source = pipeline(
      'outputs="summary, t.n, t.summary, u.x, u.y"',
      [
        '  t [prompt="p", output_schema="summary: string, n: number", out_map="summary -> summary"]',
        '  u [prompt="p", output_schema="x: string"]',
        '  start -> t -> u -> exit',
      ].join('\n'),
    );
    expect(lintRule(source, 'output_unwritten')).toEqual(['warning 2:28', 'warning 2:33', 'warning 2:49']);
    expect(diagnosticsOf(source, 'output_unwritten')[0]?.message).toBe(
      'Graph attribute outputs of "G" names "t.n", which no stage writes ("t" maps its output by out_map, which does not map to "t.n"): the run\'s output.json will lack it unless an agent writes it through status.json.',
    );
    expect(diagnosticsOf(source, 'output_unwritten')[2]?.message).toBe(
      'Graph attribute outputs of "G" names "u.y", which no stage writes ("u" writes the fields of its output_schema under "u.", which has no "y"): the run\'s output.json will lack it unless an agent writes it through status.json.',
    );
  });
});

describe('input_variable and prompt_variable: near names and what is expanded (issue 29)', () => {
  it('suggests the declared input a misspelled $input.<name> was meant to be', () => {
    const source = pipeline(
      'inputs="name: string"',
      '  plan [prompt="Hi $input.nmae"]\n  start -> plan -> exit',
    );
    expect(diagnosticsOf(source, 'input_variable')[0]?.fix).toBe(
      'Did you mean $input.name? Otherwise declare it in the graph\'s inputs, e.g. graph [inputs="name: string, nmae: string"].',
    );
    expect(diagnosticsOf(source, 'input_variable')[0]?.edits?.map((edit) => edit.text)).toEqual([
      '$input.name',
    ]);
  });

  it('says which variables are expanded, and takes $parallel.outputs in a fan-in prompt as one', () => {
    const source = pipeline('goal="x"', '  work [prompt="Do $task"]\n  start -> work -> exit');
    expect(diagnosticsOf(source, 'prompt_variable')[0]?.message).toBe(
      'The prompt of "work" uses $task, which is not expanded (prompts expand $goal, $input.<name>, $item.<name> in a foreach body and, in a fan-in\'s prompt, $parallel.outputs); the model sees "$task" literally.',
    );
    const merge = pipeline(
      'goal="x"',
      [
        '  fan [shape=component]',
        '  a [prompt="a"]',
        '  b [prompt="b"]',
        '  join [shape=tripleoctagon, fan_in_mode=merge, prompt="Merge:\\n\\n$parallel.outputs"]',
        '  other [prompt="Use $parallel.outputs"]',
        '  start -> fan -> a -> join\n  fan -> b -> join\n  join -> other -> exit',
      ].join('\n'),
    );
    expect(lintRule(merge, 'prompt_variable')).toEqual(['warning 9:22 other']);
  });
});

describe('subgraph_input and out_map_field of a sub-pipeline node (README "Typed data", issue 29)', () => {
  const child = `digraph ReviewOne {
  graph [inputs="file: string, strict?: boolean", outputs="verdict"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  check [shape=parallelogram, tool_command="echo '{\\"verdict\\": \\"ok\\"}'", output_schema="verdict: string", out_map="verdict -> verdict"]
  start -> check -> exit
}
`;
  const files: Record<string, string> = {
    'review-one.dot': child,
    'plain.dot': 'digraph Plain { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
  };
  const readGraphFile = (path: string) => files[path];
  const parent = (attributes: string, ref = 'review-one.dot') =>
    pipeline(
      'goal="x"',
      `  review [type="subgraph", graph_ref="${ref}"${attributes}]\n  start -> review -> exit`,
    );

  it('accepts the inputs and outputs the child declares, also a path into an output', () => {
    const source = parent(
      ', input.file="$context.target", input.strict="true", out_map="verdict -> review.verdict"',
    );
    for (const rule of [
      'subgraph_input',
      'out_map_field',
      'unknown_attribute',
      'inert_attribute',
      'attribute_type',
    ]) {
      expect(lintRule(source, rule, { readGraphFile })).toEqual([]);
    }
    expect(
      lintRule(parent(', input.file="a", out_map="verdict.text -> t"'), 'out_map_field', { readGraphFile }),
    ).toEqual([]);
  });

  it('reports an undeclared input at its key with the near name, and a required input not given at the node', () => {
    const source = parent(', input.fille="a.ts", input.strict="true"');
    expect(lintRule(source, 'subgraph_input', { readGraphFile })).toEqual([
      'error 5:3 review',
      'error 5:56 review',
    ]);
    const [missing, undeclared] = diagnosticsOf(source, 'subgraph_input', { readGraphFile });
    expect(missing?.message).toBe(
      'Subgraph node "review" does not give the required input "file" (string) of review-one.dot, so the run of "review" fails.',
    );
    expect(missing?.fix).toBe(
      'Add input.file="..." to "review" (a value, or $context.<key>, $input.<name>, $item.<name>).',
    );
    expect(undeclared?.message).toBe(
      'Subgraph node "review" gives input "fille", which review-one.dot does not declare (it declares "file", "strict"), so the run of "review" fails.',
    );
    expect(undeclared?.fix).toBe('Did you mean "input.file"? Rename input.fille to input.file.');
    expect(undeclared?.edits?.map((edit) => edit.text)).toEqual(['"input.file"']);
    // Without a reader the child is not read: only the name's form is checked.
    expect(lintRule(source, 'subgraph_input')).toEqual([]);
    expect(lintRule(parent(', "input.the-file"="a"'), 'subgraph_input')).toEqual(['error 5:56 review']);
  });

  it('reports a value without variables that the input type refuses, at the value', () => {
    // Once `validate` said valid and the run failed at the node ("three" for an integer-typed input).
    const source = parent(', input.file="a.ts", input.strict="yes"');
    expect(lintRule(source, 'subgraph_input', { readGraphFile })).toEqual(['error 5:88 review']);
    const [found] = diagnosticsOf(source, 'subgraph_input', { readGraphFile });
    expect(found?.message).toBe(
      'Subgraph node "review" gives input "strict" the value "yes", which is not true or false (review-one.dot declares strict: boolean), so the run of "review" fails.',
    );
    expect(found?.fix).toBe(
      'Write true or false in input.strict (read as JSON, as `--input` reads it), or a variable ($context.<key>, $input.<name>, $item.<name>).',
    );
    for (const fine of [
      ', input.file="42", input.strict="false"',
      ', input.file="a", input.strict="$context.strict"',
    ]) {
      expect(lintRule(parent(fine), 'subgraph_input', { readGraphFile })).toEqual([]);
    }
  });

  it('reports an input given to a child that declares none', () => {
    const source = parent(', input.file="a"', 'plain.dot');
    expect(diagnosticsOf(source, 'subgraph_input', { readGraphFile }).map((found) => found.message)).toEqual([
      'Subgraph node "review" gives input "file", but plain.dot declares no inputs, so the run of "review" fails.',
    ]);
  });

  it('reports an out_map field that is not among the child outputs, at the field, with the near key', () => {
    const source = parent(', input.file="a", out_map="verdit -> review.verdict"');
    expect(lintRule(source, 'out_map_field', { readGraphFile })).toEqual(['error 5:81 review']);
    const [diagnostic] = diagnosticsOf(source, 'out_map_field', { readGraphFile });
    expect(diagnostic?.message).toBe(
      'The out_map of "review" maps the field "verdit", which is not among the outputs of review-one.dot ("verdict"): "review.verdict" would never be set.',
    );
    expect(diagnostic?.fix).toBe('Did you mean "verdict"? Write out_map="verdict -> review.verdict".');
  });

  it('reports an out_map on a node whose child declares no outputs once, saying the whole child context comes back', () => {
    // Once the fix told to declare the (maybe misspelled) mapped field in the child.
    const none = parent(', out_map="verdit -> v, summary -> s"', 'plain.dot');
    expect(lintRule(none, 'out_map_field', { readGraphFile })).toEqual(['error 5:59 review']);
    expect(
      diagnosticsOf(none, 'out_map_field', { readGraphFile }).map((found) => [found.message, found.fix]),
    ).toEqual([
      [
        'The out_map of "review" has no effect: plain.dot declares no outputs, so every key the child run changes comes back to "review" as it is (the whole child context), whatever out_map says.',
        'Remove out_map, or declare what plain.dot returns: graph [outputs="<key>, <key>"] in plain.dot, listing the context keys its stages set, then map those keys here.',
      ],
    ]);
  });
});

describe('subgraph_input against a child whose inputs are a JSON Schema file (README "Typed data")', () => {
  const childOf = (inputs: string) =>
    `digraph Typed {\n  graph [inputs="${inputs}"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n}\n`;
  const files: Record<string, string> = {
    'sub/typed.dot': childOf('schemas/in.json'),
    'sub/open.dot': childOf('schemas/open.json'),
    'sub/missing.dot': childOf('schemas/none.json'),
    'sub/bad.dot': childOf('schemas/bad.json'),
    'sub/list.dot': childOf('schemas/list.json'),
    // Relative to the child's DOT file, as the run reads it: not to the parent's.
    'sub/schemas/in.json': JSON.stringify({
      type: 'object',
      properties: { file: { type: 'string' }, count: { type: 'integer' }, tags: { type: 'array' } },
      required: ['file'],
      additionalProperties: false,
    }),
    'sub/schemas/open.json': JSON.stringify({ type: 'object', properties: { file: { type: 'string' } } }),
    'sub/schemas/bad.json': '{"type": "object",',
    'sub/schemas/list.json': '["file"]',
    'schemas/in.json': JSON.stringify({ type: 'object', properties: {}, additionalProperties: false }),
  };
  const readGraphFile = (path: string) => files[path];
  const parent = (ref: string, attributes: string) =>
    pipeline(
      'goal="x"',
      `  review [type="subgraph", graph_ref="${ref}"${attributes}]\n  start -> review -> exit`,
    );

  it('accepts the inputs the schema file declares', () => {
    for (const attributes of [
      ', input.file="a.ts", input.count="3", input.tags="[1]"',
      ', input.file="$context.target", input.count="$context.count"',
    ]) {
      expect(lintRule(parent('sub/typed.dot', attributes), 'subgraph_input', { readGraphFile })).toEqual([]);
    }
  });

  it('reports an undeclared input with the near name, a value its type refuses and a required input not given', () => {
    // Once a child with inputs="schemas/in.json" was not checked at all: validate passed, the run failed at the node.
    const source = parent('sub/typed.dot', ', input.fille="a.ts", input.count="three"');
    expect(lintRule(source, 'subgraph_input', { readGraphFile })).toEqual([
      'error 5:3 review',
      'error 5:55 review',
      'error 5:87 review',
    ]);
    expect(
      diagnosticsOf(source, 'subgraph_input', { readGraphFile }).map((found) => [found.message, found.fix]),
    ).toEqual([
      [
        'Subgraph node "review" does not give the required input "file" (string) of sub/typed.dot, so the run of "review" fails.',
        'Add input.file="..." to "review" (a value, or $context.<key>, $input.<name>, $item.<name>).',
      ],
      [
        'Subgraph node "review" gives input "fille", which the input schema of sub/typed.dot (sub/schemas/in.json) does not declare (it declares "file", "count", "tags"), so the run of "review" fails.',
        'Did you mean "input.file"? Rename input.fille to input.file.',
      ],
      [
        'Subgraph node "review" gives input "count" the value "three", which is not an integer (the input schema of sub/typed.dot (sub/schemas/in.json) declares count: integer), so the run of "review" fails.',
        'Write an integer in input.count (read as JSON, as `--input` reads it), or a variable ($context.<key>, $input.<name>, $item.<name>).',
      ],
    ]);
    expect(
      diagnosticsOf(parent('sub/typed.dot', ', input.file="a", input.tags="x"'), 'subgraph_input', {
        readGraphFile,
      }).map((found) => found.message),
    ).toEqual([
      'Subgraph node "review" gives input "tags" the value "x", which is not a list (JSON, e.g. ["a", "b"]) (the input schema of sub/typed.dot (sub/schemas/in.json) declares tags: any[]), so the run of "review" fails.',
    ]);
  });

  it("checks against the schema file as the child's own preparation read it, reading it once", () => {
    // The parent's checks take the child's read: once they read the file again, apart from the child's.
    const reads: string[] = [];
    const counting = (path: string) => {
      reads.push(path);
      return files[path];
    };
    const source = parent('sub/typed.dot', ', input.fille="a.ts"');
    expect(lintRule(source, 'subgraph_input', { readGraphFile: counting })).toEqual([
      'error 5:3 review',
      'error 5:55 review',
    ]);
    expect(reads.filter((path) => path === 'sub/schemas/in.json')).toEqual(['sub/schemas/in.json']);
  });

  it('takes an undeclared input when the schema does not refuse other properties', () => {
    const source = parent('sub/open.dot', ', input.file="a", input.extra="b"');
    expect(lintRule(source, 'subgraph_input', { readGraphFile })).toEqual([]);
  });

  it('reports a schema file that is missing, not JSON or not an object as an error of the child, naming the file', () => {
    // The child itself cannot start (inputs_declaration in the child), so its parent's subgraph_ref says so.
    const found = (ref: string) =>
      diagnosticsOf(parent(ref, ', input.file="a"'), 'subgraph_ref', { readGraphFile }).map((diagnostic) => [
        diagnostic.message,
        diagnostic.fix,
      ]);
    expect(lintRule(parent('sub/missing.dot', ''), 'subgraph_ref', { readGraphFile })).toEqual([
      'error 5:38 review',
    ]);
    expect(found('sub/missing.dot')).toEqual([
      [
        'Subgraph node "review": the sub-pipeline "sub/missing.dot" has 1 error; the first: sub/missing.dot:2:17: The input schema file of graph "Typed", sub/schemas/none.json (inputs="schemas/none.json"), does not exist, so a run cannot start.',
        'Fix sub/missing.dot; validate it on its own to see every problem.',
      ],
    ]);
    expect(found('sub/bad.dot').map(([message]) => message)).toEqual([
      expect.stringMatching(
        /^Subgraph node "review": the sub-pipeline "sub\/bad\.dot" has 1 error; the first: sub\/bad\.dot:2:17: The input schema file of graph "Typed", sub\/schemas\/bad\.json \(inputs="schemas\/bad\.json"\), is not JSON \(.+\), so a run cannot start\.$/,
      ),
    ]);
    expect(found('sub/list.dot').map(([message]) => message)).toEqual([
      'Subgraph node "review": the sub-pipeline "sub/list.dot" has 1 error; the first: sub/list.dot:2:17: The input schema file of graph "Typed", sub/schemas/list.json (inputs="schemas/list.json"), is not a JSON Schema object, so a run cannot start.',
    ]);
  });
});

describe('input_variable against the graph\'s own input schema file (README "Typed data")', () => {
  const files: Record<string, string> = {
    'schemas/closed.json': JSON.stringify({
      type: 'object',
      properties: { repo: { type: 'string' }, issue: { type: 'integer' } },
      additionalProperties: false,
    }),
    'schemas/open.json': JSON.stringify({ type: 'object', properties: { repo: { type: 'string' } } }),
  };
  const readGraphFile = (path: string) => files[path];
  const body = '  plan [prompt="Review $input.rpo and $input.issue"]\n  start -> plan -> exit';

  it('reports a name a closed schema does not declare as an error, with the near name; an open one as a warning', () => {
    // Once a graph with inputs="schemas/in.json" was not checked at all: a misspelled $input.<name> expanded to nothing.
    const closed = pipeline('inputs="schemas/closed.json"', body);
    expect(lintRule(closed, 'input_variable', { readGraphFile })).toEqual(['error 5:24 plan']);
    expect(
      diagnosticsOf(closed, 'input_variable', { readGraphFile }).map((found) => [found.message, found.fix]),
    ).toEqual([
      [
        'The prompt of "plan" uses $input.rpo, but the input schema schemas/closed.json does not declare "rpo" (it declares "repo", "issue").',
        'Did you mean $input.repo? Otherwise add "rpo" to the properties of schemas/closed.json.',
      ],
    ]);
    const open = pipeline('inputs="schemas/open.json"', body);
    expect(lintRule(open, 'input_variable', { readGraphFile })).toEqual([
      'warning 5:24 plan',
      'warning 5:39 plan',
    ]);
    expect(diagnosticsOf(open, 'input_variable', { readGraphFile })[1]?.message).toBe(
      'The prompt of "plan" uses $input.issue, but the input schema schemas/open.json does not declare "issue" (it declares "repo"); a run is given it only if the caller passes it.',
    );
    // Without a file reader (validate on a graph alone) the names are not known: nothing is reported.
    expect(lintRule(closed, 'input_variable')).toEqual([]);
  });

  it('reports a missing input schema file at inputs, once, as an error of the graph', () => {
    const missing = pipeline('inputs="schemas/none.json"', body);
    expect(lintRule(missing, 'inputs_declaration', { readGraphFile })).toEqual(['error 2:17']);
    expect(diagnosticsOf(missing, 'inputs_declaration', { readGraphFile })[0]?.message).toBe(
      'The input schema file of graph "G", schemas/none.json (inputs="schemas/none.json"), does not exist, so a run cannot start.',
    );
    expect(lintRule(missing, 'input_variable', { readGraphFile })).toEqual([]);
  });
});

describe('input_variable in the var.* and input.* values of a sub-pipeline node (README "Typed data")', () => {
  it("reports a $input.<name> the caller's inputs do not declare, with the near name", () => {
    const source = pipeline(
      'inputs="repo: string"',
      '  review [type="subgraph", graph_ref="child.dot", input.file="$input.rpo/a.ts", var.base="$input.repo"]\n  start -> review -> exit',
    );
    expect(lintRule(source, 'input_variable')).toEqual(['error 5:63 review']);
    expect(diagnosticsOf(source, 'input_variable')[0]?.message).toBe(
      'The input.file of "review" uses $input.rpo, but the graph\'s inputs do not declare "rpo" (they declare "repo").',
    );
  });
});

describe('out_map_field and output_schema against a stage\'s output_schema file (README "Typed data")', () => {
  const files: Record<string, string> = {
    'schemas/review.json': JSON.stringify({
      type: 'object',
      properties: { verdict: { type: 'string' }, issues: { type: 'array' } },
    }),
    'schemas/list.json': '[]',
  };
  const readGraphFile = (path: string) => files[path];

  it('reports an out_map field the schema file lacks, naming the file and the near field', () => {
    // Once a schema file was not read by lint: a misspelled out_map field left its key unset without a word.
    const source = pipeline(
      'goal="x"',
      '  review [prompt="p", output_schema="schemas/review.json", out_map="verdit -> review.verdict"]\n  start -> review -> exit',
    );
    expect(lintRule(source, 'out_map_field', { readGraphFile })).toEqual(['error 5:69 review']);
    expect(
      diagnosticsOf(source, 'out_map_field', { readGraphFile }).map((found) => [found.message, found.fix]),
    ).toEqual([
      [
        'The out_map of "review" maps the field "verdit", which its output_schema (schemas/review.json) does not have (it has "verdict", "issues"): "review.verdict" would never be set.',
        'Did you mean "verdict"? Write out_map="verdict -> review.verdict".',
      ],
    ]);
    // Without a file reader (validate on a graph alone) the file is not read: nothing is reported.
    expect(lintRule(source, 'out_map_field')).toEqual([]);
  });

  it('reports a missing or unusable output_schema file at the attribute', () => {
    const source = pipeline(
      'goal="x"',
      '  a [prompt="p", output_schema="schemas/none.json"]\n  b [prompt="p", output_schema="schemas/list.json"]\n  start -> a -> b -> exit',
    );
    expect(
      diagnosticsOf(source, 'output_schema', { readGraphFile }).map((found) => [found.message, found.nodeId]),
    ).toEqual([
      [
        'The output_schema file of "a", schemas/none.json (output_schema="schemas/none.json"), does not exist, so the stage fails when it runs.',
        'a',
      ],
      [
        'The output_schema file of "b", schemas/list.json (output_schema="schemas/list.json"), is not a JSON Schema object, so the stage fails when it runs.',
        'b',
      ],
    ]);
    expect(lintRule(source, 'output_schema', { readGraphFile })).toEqual(['error 5:32 a', 'error 6:32 b']);
  });
});
