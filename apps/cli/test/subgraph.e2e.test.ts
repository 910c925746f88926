/**
 * Sub-pipeline nodes (spec §9.4) through the built binary: `validate` and `run` check every `graph_ref` before
 * anything runs, and a parent with a failing child routes on the failure.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

async function files(entries: Readonly<Record<string, string>>): Promise<string> {
  const dir = await temporaryDirectory('attractor-subgraph-');
  for (const [name, text] of Object.entries(entries)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

const parent = (ref: string) => `digraph Parent {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  checks [type="subgraph", graph_ref="${ref}"]
  fix    [shape=parallelogram, tool_command="echo fixing"]
  start -> checks
  checks -> exit [condition="outcome=success"]
  checks -> fix  [condition="outcome=fail"]
  fix -> exit
}
`;

describe('subgraph nodes through the CLI (spec §9.4)', () => {
  it('validate reports a graph_ref that does not exist at file:line:col with a fix, and run refuses it (exit 2)', async () => {
    const dir = await files({ 'pipelines/main/pipeline.dot': parent('../checks-core/pipeline.dot') });
    const validated = await attractor(['validate', 'pipelines/main/pipeline.dot'], { cwd: dir });
    expect(validated.exitCode).toBe(1);
    expect(validated.stdout).toContain(
      'pipelines/main/pipeline.dot:4:38: error[subgraph_ref]: Subgraph node "checks": graph_ref "../checks-core/pipeline.dot" does not exist (looked for pipelines/checks-core/pipeline.dot).',
    );
    expect(validated.stdout).toContain(
      '> 4 |   checks [type="subgraph", graph_ref="../checks-core/pipeline.dot"]',
    );
    expect(validated.stdout).toContain(
      'fix: Fix the path, which is relative to the directory of this DOT file, or create pipelines/checks-core/pipeline.dot.',
    );
    const run = await attractor(['run', '--dry-run', 'pipelines/main/pipeline.dot'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('pipelines/main/pipeline.dot:4:38: error[subgraph_ref]:');
    expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
  });

  it('validate reports a cycle of graph_refs', async () => {
    const dir = await files({ 'a.dot': parent('b.dot'), 'b.dot': parent('a.dot') });
    const validated = await attractor(['validate', 'a.dot'], { cwd: dir });
    expect(validated.exitCode).toBe(1);
    expect(validated.stdout).toContain(
      'a.dot:4:38: error[subgraph_ref]: Subgraph node "checks": the sub-pipeline "b.dot" has 1 error; the first: b.dot:4:38: Subgraph node "checks": graph_ref "a.dot" leads back to a.dot, a pipeline that includes this one: a.dot → b.dot → a.dot. Running it would never end.',
    );
  });

  it('runs a parent and its child end to end; a failing child routes the parent on outcome=fail', async () => {
    const child = `digraph Checks {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  lint  [shape=parallelogram, tool_command="echo lint-ok"]
  test  [shape=parallelogram, tool_command="echo '1 test failed' && exit 1"]
  start -> lint -> test -> exit
}
`;
    const dir = await files({
      'main/pipeline.dot': parent('../checks/pipeline.dot'),
      'checks/pipeline.dot': child,
    });
    const run = await attractor(
      ['run', '--simulate', '--json', '--logs-dir', 'run', '--workdir', '.', 'main/pipeline.dot'],
      { cwd: dir },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; nodeId?: string; branchPath?: string[] });
    const completed = events
      .filter((event) => event.type === 'stage.completed' || event.type === 'stage.failed')
      .map((event) => `${(event.branchPath ?? []).join('/')}:${event.nodeId}:${event.type}`);
    expect(completed).toEqual([
      ':start:stage.completed',
      'child:checks:start:stage.completed',
      'child:checks:lint:stage.completed',
      'child:checks:test:stage.failed',
      'child:checks:test:stage.completed',
      ':checks:stage.failed',
      ':checks:stage.completed',
      ':fix:stage.completed',
      ':exit:stage.completed',
    ]);
    expect(events.at(-1)?.type).toBe('pipeline.completed');
    // The child's logs sit under the node's stage directory.
    expect(await readFile(join(dir, 'run', 'checks', 'child', 'test', 'stdout.txt'), 'utf8')).toBe(
      '1 test failed\n',
    );
    const status = JSON.parse(await readFile(join(dir, 'run', 'checks', 'status.json'), 'utf8')) as {
      outcome: string;
      failure_reason: string;
      context_updates: Record<string, unknown>;
    };
    expect(status.outcome).toBe('fail');
    expect(status.failure_reason).toMatch(/^sub-pipeline \.\.\/checks\/pipeline\.dot \(.*\) failed: /);
    expect(status.context_updates['tool.output']).toBe('1 test failed\n');
  });

  it('warns before a --simulate-script run about keys that name no node, and accepts keys of sub-pipeline nodes', async () => {
    const child = `digraph Checks {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  lint  [shape=parallelogram, tool_command="echo lint-ok"]
  start -> lint -> exit
}
`;
    const dir = await files({
      'main/pipeline.dot': parent('../checks/pipeline.dot'),
      'checks/pipeline.dot': child,
      'script.json': JSON.stringify({ lint: ['fail'], fixx: ['success'], deploy: ['fail'] }),
    });
    const run = await attractor(
      ['run', '--dry-run', '--simulate-script', 'script.json', '--logs-dir', 'run', 'main/pipeline.dot'],
      { cwd: dir },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr.split('\n').slice(0, 4)).toEqual([
      'script.json: warning[simulate_script]: "fixx" names no node of the pipeline or its sub-pipelines, so its steps are never used. Did you mean "fix"?',
      'script.json: warning[simulate_script]: "deploy" names no node of the pipeline or its sub-pipelines, so its steps are never used.',
      '  node ids: start, exit, checks, fix, lint',
      '  fix: Rename each key to the id of the node it scripts (keys are node ids, also those of sub-pipelines), or remove it.',
    ]);
    // The child's scripted failure routed the parent to fix.
    expect(run.stdout).toMatch(/✔ fix /);
  });

  it("inspect on a child run directory suggests resuming the parent run, which the child's resume needs", async () => {
    const child = `digraph Checks {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  lint  [shape=parallelogram, tool_command="echo bad; exit 1"]
  start -> lint
  lint -> exit [condition="outcome=success"]
}
`;
    const dir = await files({
      'main/pipeline.dot':
        'digraph Parent {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  checks [type="subgraph", graph_ref="../checks/pipeline.dot"]\n  start -> checks -> exit\n}\n',
      'checks/pipeline.dot': child,
    });
    const run = await attractor(['run', '--simulate', '--logs-dir', 'run', 'main/pipeline.dot'], {
      cwd: dir,
    });
    expect(run.exitCode).toBe(1);
    const inspected = await attractor(['inspect', 'run/checks/child'], { cwd: dir });
    expect(inspected.exitCode, inspected.stderr).toBe(0);
    expect(inspected.stdout).toContain('run:      run/checks/child\nparent:   run (this is a child run)\n');
    expect(inspected.stdout).toContain(
      'next:  lint  (a child run resumes with its parent: attractor resume run)',
    );
    expect(inspected.stdout).not.toContain('resume run/checks/child');
    // The parent itself resumes as before.
    const parentRun = await attractor(['inspect', 'run'], { cwd: dir });
    expect(parentRun.stdout).toContain('next:  checks  (attractor resume run)');
    expect(parentRun.stdout).not.toContain('parent:');
  });
});

/** review-one.dot: a sub-pipeline called like a function; it also writes `scratch`, which is none of its outputs. */
const REVIEW_ONE = `digraph ReviewOne {
  graph [inputs="file: string, strict?: boolean", outputs="verdict"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  note  [shape=parallelogram, tool_command="echo '{\\"scratch\\": \\"child only\\"}'", output_schema="scratch: string", out_map="scratch -> scratch"]
  check [shape=parallelogram, output_schema="verdict: string", out_map="verdict -> verdict",
         tool_command="case \\"$input.file\\" in *.ts) v=approve;; *) v=reject;; esac; printf '{\\"verdict\\": \\"%s\\"}' \\"$v\\""]
  start -> note -> check -> exit
}
`;

describe('a sub-pipeline node as a typed function through the CLI (README "Typed data")', () => {
  const caller = (attributes: string) => `digraph Caller {
  graph [outputs="review.verdict, scratch"]
  start   [shape=Mdiamond]
  exit    [shape=Msquare]
  review  [type="subgraph", graph_ref="review-one.dot"${attributes}]
  merge   [shape=parallelogram, tool_command="echo merging"]
  report  [shape=parallelogram, tool_command="echo reporting"]
  start -> review
  review -> merge  [condition="context.review.verdict=approve"]
  review -> report [condition="outcome=fail"]
  review -> exit
  merge -> exit
  report -> exit
}
`;

  it("gives input.file from the context, routes on the output out_map maps, and keeps the child's other writes", async () => {
    const dir = await files({
      'caller.dot': caller(', input.file="$context.target", out_map="verdict -> review.verdict"'),
      'review-one.dot': REVIEW_ONE,
    });
    const validated = await attractor(['validate', 'caller.dot'], { cwd: dir });
    expect(validated.exitCode, validated.stdout + validated.stderr).toBe(0);
    const run = await attractor(['run', 'caller.dot', '--set', 'target=src/a.ts', '--logs-dir', 'run'], {
      cwd: dir,
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/✔ merge /);
    // The output of the caller has the mapped verdict and not the child's scratch.
    expect(JSON.parse(await readFile(join(dir, 'run', 'output.json'), 'utf8'))).toEqual({
      'review.verdict': 'approve',
    });
    const status = JSON.parse(await readFile(join(dir, 'run', 'review', 'status.json'), 'utf8')) as {
      context_updates: Record<string, unknown>;
    };
    expect(status.context_updates).toEqual({ 'review.verdict': 'approve' });
    // The child ran as a run of its own: its output.json holds its result.
    expect(JSON.parse(await readFile(join(dir, 'run', 'review', 'child', 'output.json'), 'utf8'))).toEqual({
      verdict: 'approve',
    });
  });

  it('validate reports an undeclared input, a required input not given and an out_map field the child lacks', async () => {
    const dir = await files({
      'caller.dot': caller(', input.fille="$context.target", out_map="verdit -> review.verdict"'),
      'review-one.dot': REVIEW_ONE,
    });
    const validated = await attractor(['validate', 'caller.dot'], { cwd: dir });
    expect(validated.exitCode).toBe(1);
    expect(validated.stdout).toContain(
      'caller.dot:5:3: error[subgraph_input]: Subgraph node "review" does not give the required input "file" (string) of review-one.dot, so the run of "review" fails.',
    );
    expect(validated.stdout).toContain(
      'caller.dot:5:57: error[subgraph_input]: Subgraph node "review" gives input "fille", which review-one.dot does not declare (it declares "file", "strict"), so the run of "review" fails.',
    );
    expect(validated.stdout).toContain('fix: Did you mean "input.file"? Rename input.fille to input.file.');
    expect(validated.stdout).toContain(
      'caller.dot:5:97: error[out_map_field]: The out_map of "review" maps the field "verdit", which is not among the outputs of review-one.dot ("verdict"): "review.verdict" would never be set.',
    );
    const run = await attractor(['run', 'caller.dot', '--set', 'target=src/a.ts'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('error[subgraph_input]');
  });

  it("fails the node with the checker's message when an input does not match the child's schema file", async () => {
    const dir = await files({
      'caller.dot': caller(', input.file="$context.target", input.strict="$context.strict"'),
      'review-one.dot': REVIEW_ONE.replace(
        'inputs="file: string, strict?: boolean"',
        'inputs="review-one.inputs.json"',
      ),
      'review-one.inputs.json': JSON.stringify({
        type: 'object',
        properties: { file: { type: 'string' }, strict: { type: 'boolean' } },
        required: ['file'],
        additionalProperties: false,
      }),
    });
    // A value lint can read is checked against the schema file before the run (relative to the child's DOT file).
    await writeFile(
      join(dir, 'literal.dot'),
      caller(', input.file="$context.target", input.strict="sometimes"'),
    );
    const validated = await attractor(['validate', 'literal.dot'], { cwd: dir });
    expect(validated.exitCode).toBe(1);
    expect(validated.stdout).toContain(
      'error[subgraph_input]: Subgraph node "review" gives input "strict" the value "sometimes", which is not true or false (the input schema of review-one.dot (review-one.inputs.json) declares strict: boolean), so the run of "review" fails.',
    );
    // A value known only when the node runs is checked then.
    const run = await attractor(
      ['run', 'caller.dot', '--set', 'target=src/a.ts', '--set', 'strict=sometimes', '--logs-dir', 'run'],
      { cwd: dir },
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/✔ report /);
    const status = JSON.parse(await readFile(join(dir, 'run', 'review', 'status.json'), 'utf8')) as {
      outcome: string;
      failure_reason: string;
    };
    expect(status.outcome).toBe('fail');
    expect(status.failure_reason).toBe(
      'Subgraph node "review" (graph_ref="review-one.dot"): The inputs of graph "ReviewOne" do not match its declaration (inputs="review-one.inputs.json"):\n  - input "strict" must be true or false, got "sometimes"\nFix: set input.strict="..." on "review" (a value, or $context.<key>, $input.<name>, $item.<name>).',
    );
  });

  it("a foreach whose body is the sub-pipeline node maps each item's output, and collect sees it", async () => {
    const dir = await files({
      'each.dot': `digraph Each {
  graph [inputs="files: string[]", state="verdicts: append, reviews: append", outputs="verdicts, reviews"]
  start  [shape=Mdiamond]
  exit   [shape=Msquare]
  each   [type="foreach", over="input.files", as="file", max_parallel=2, collect="reviews"]
  review [type="subgraph", graph_ref="review-one.dot", input.file="$item.file", out_map="verdict -> verdicts"]
  join   [shape=tripleoctagon, join_merge=none]
  start -> each -> review -> join -> exit
}
`,
      'review-one.dot': REVIEW_ONE,
    });
    const run = await attractor(
      ['run', 'each.dot', '--input', 'files=["src/a.ts", "README.md", "src/b.ts"]', '--logs-dir', 'run'],
      { cwd: dir },
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const output = JSON.parse(await readFile(join(dir, 'run', 'output.json'), 'utf8')) as {
      verdicts: string[];
      reviews: { index: number; item: string; status: string; updates: Record<string, unknown> }[];
    };
    expect(output.verdicts).toEqual(['approve', 'reject', 'approve']);
    expect(output.reviews.map((entry) => [entry.index, entry.item, entry.status, entry.updates])).toEqual([
      [0, 'src/a.ts', 'success', { verdicts: 'approve' }],
      [1, 'README.md', 'success', { verdicts: 'reject' }],
      [2, 'src/b.ts', 'success', { verdicts: 'approve' }],
    ]);
  });
});
