import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createMemoryRunStore, createTestClock } from '@attractor/engine/test';
import { prepareGraph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import {
  pipelines,
  readJson,
  readText,
  runDot,
  tempDir,
  waitForFile,
  waitUntilDead,
  writeDot,
} from './helpers.js';

/** A parent that runs `graph_ref` at node `checks`, routes on the outcome, and ends at `exit`. */
function parent(ref: string, attributes = ''): string {
  return `digraph Parent {
  graph [goal="ship the change"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  checks [type="subgraph", graph_ref="${ref}"${attributes}]
  fix [shape=parallelogram, tool_command="echo fixing"]
  review [shape=parallelogram, tool_command="echo reviewed"]
  start -> checks
  checks -> review [condition="outcome=success"]
  checks -> fix [condition="outcome=fail"]
  fix -> exit
  review -> exit
}
`;
}

describe('subgraph handler (spec §9.4 sub-pipeline nodes)', () => {
  it("never quotes a file outside the pipeline's directory that graph_ref names; a child beside it is quoted", async () => {
    const { dir, graph } = pipelines({
      'main/pipeline.dot': parent('../private/notes.txt'),
      'private/notes.txt': 'root:x:0:0:SECRET-LINE-42\n',
    });
    const { result, events } = await runDot(graph, { workdir: dir });
    const reason = result.nodeOutcomes.checks?.failureReason ?? '';
    expect(reason).toContain('is not a valid pipeline (1 error: 1:1 ');
    expect(reason).toContain("outside the pipeline's directory");
    expect(reason).not.toContain('SECRET-LINE-42');
    expect(JSON.stringify(events)).not.toContain('SECRET-LINE-42');
    // A broken child in the pipeline's own directory is shown with its lines, to fix it.
    const inside = pipelines({
      'main/pipeline.dot': parent('broken.dot'),
      'main/broken.dot': 'digraph broken { start [shape=Mdiamond] -> }\n',
    });
    const ran = await runDot(inside.graph, { workdir: inside.dir });
    expect(ran.result.nodeOutcomes.checks?.failureReason).toContain('> 1 | digraph broken');
  });

  it('runs graph_ref (relative to the parent file) as a child pipeline on a copy of the context, then returns its changes', async () => {
    const child = `digraph Checks {
      graph [goal="run the checks"]
      start [shape=Mdiamond]
      exit [shape=Msquare]
      lint [shape=parallelogram, tool_command="printf 'lint ok for %s' \\"$ATTRACTOR_NODE_ID\\""]
      route [shape=diamond]
      fast [shape=parallelogram, tool_command="echo fast-path > fast.txt"]
      slow [shape=parallelogram, tool_command="echo slow-path > slow.txt"]
      start -> lint -> route
      route -> fast [condition="context.target=prod && context.mode=quick"]
      route -> slow [condition="context.target!=prod"]
      route -> slow [condition="context.mode!=quick"]
      fast -> exit
      slow -> exit
    }`;
    const { dir, graph } = pipelines({
      'main/pipeline.dot': parent('../checks-core/pipeline.dot', ', var.target="prod"'),
      'checks-core/pipeline.dot': child,
    });
    const { result, logsRoot, events } = await runDot(graph, {
      workdir: dir,
      context: { mode: 'quick', 'secret.keep': 'parent only' },
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'checks', 'review', 'exit']);
    // The child saw the parent's context and the node's var.target, and ran in the same working directory.
    expect(readText(join(dir, 'fast.txt'))).toBe('fast-path\n');
    expect(existsSync(join(dir, 'slow.txt'))).toBe(false);
    // Its own run directory sits under the stage directory, with its own checkpoint and stages.
    const childRoot = join(logsRoot, 'checks', 'child');
    expect(readdirSync(childRoot)).toEqual(expect.arrayContaining(['checkpoint.json', 'lint', 'fast']));
    expect(
      readJson<{ completed_nodes: string[] }>(join(childRoot, 'checkpoint.json')).completed_nodes,
    ).toEqual(['start', 'lint', 'route', 'fast', 'exit']);
    // The child's changes come back; its graph attributes and the var stay in the child.
    expect(result.nodeOutcomes.checks?.contextUpdates).toMatchObject({
      'tool.output': '',
      tool_stdout: '',
    });
    expect(Object.keys(result.nodeOutcomes.checks?.contextUpdates ?? {}).sort()).toEqual([
      'tool.exit_code',
      'tool.last_line',
      'tool.output',
      'tool.stderr',
      'tool_stderr',
      'tool_stdout',
    ]);
    expect(result.context.get('graph.goal')).toBe('ship the change');
    expect(result.context.get('target')).toBeUndefined();
    expect(result.context.get('secret.keep')).toBe('parent only');
    expect(result.nodeOutcomes.checks?.notes).toBe(
      `Sub-pipeline ../checks-core/pipeline.dot completed (5 stages): ${childRoot}`,
    );
    // Child events reach the parent's sink, marked with the node that runs the child.
    const lint = events.find((event) => event.type === 'stage.completed' && event.nodeId === 'lint');
    expect(lint?.branchPath).toEqual(['child:checks']);
  });

  it("fails the node when the child fails, with the child's reason and its context changes", async () => {
    const child = `digraph Checks {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      test [shape=parallelogram, tool_command="echo '2 tests failed: parse, render'; exit 1"]
      start -> test -> exit
    }`;
    const { dir, graph } = pipelines({ 'parent.dot': parent('checks.dot'), 'checks.dot': child });
    const { result, logsRoot } = await runDot(graph, { workdir: dir });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'checks', 'fix', 'exit']);
    const childRoot = join(logsRoot, 'checks', 'child');
    expect(result.nodeOutcomes.checks).toMatchObject({
      status: 'fail',
      failureReason: expect.stringMatching(
        new RegExp(`^sub-pipeline checks\\.dot \\(${childRoot}\\) failed: .*test.*exited with code 1`),
      ),
    });
    // The fixer can read the failing check's output, as in a flat pipeline.
    expect(result.nodeOutcomes.checks?.contextUpdates?.['tool.output']).toBe(
      '2 tests failed: parse, render\n',
    );
  });

  it("names a failed child of a store that is not a directory by the store's location, unresolved", async () => {
    const child = `digraph Checks {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      test [shape=parallelogram, tool_command="echo 'lint failed'; exit 1"]
      start -> test -> exit
    }`;
    const { dir, graph } = pipelines({ 'parent.dot': parent('checks.dot'), 'checks.dot': child });
    const store = createMemoryRunStore('postgres://ci@127.0.0.1:5432/attractor#run-1');
    const { result, events } = await runDot(graph, { workdir: dir, createRunStore: () => store });
    expect(result.completedNodes).toEqual(['start', 'checks', 'fix', 'exit']);
    expect(result.nodeOutcomes.checks?.failureReason).toBe(
      'sub-pipeline checks.dot (postgres://ci@127.0.0.1:5432/attractor#run-1/checks/child) failed: node "test" failed: command exited with code 1',
    );
    expect(events.find((event) => event.type === 'stage.log' && event.nodeId === 'checks')).toMatchObject({
      message: 'sub-pipeline checks.dot started: postgres://ci@127.0.0.1:5432/attractor#run-1/checks/child',
    });
    expect(store.child('checks/child').events[0]).toMatchObject({
      type: 'pipeline.started',
      runId: 'child',
      logsRoot: 'postgres://ci@127.0.0.1:5432/attractor#run-1/checks/child',
    });
  });

  it('takes the outcome of the stage before the exit, so a failure routed to the exit still fails the node', async () => {
    const child = `digraph Verdict {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      judge [shape=parallelogram, tool_command="exit 4"]
      start -> judge
      judge -> exit [condition="outcome=fail"]
      judge -> exit [condition="outcome=success"]
    }`;
    const { dir, graph } = pipelines({ 'parent.dot': parent('verdict.dot'), 'verdict.dot': child });
    const { result } = await runDot(graph, { workdir: dir });
    expect(result.completedNodes).toEqual(['start', 'checks', 'fix', 'exit']);
    expect(result.nodeOutcomes.checks?.failureReason).toMatch(
      /reached its exit after stage "judge" failed: command exited with code 4$/,
    );
  });

  it('passes a custom outcome of the last stage to the parent edges', async () => {
    const child = `digraph Triage {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      classify [prompt="classify"]
      start -> classify -> exit
    }`;
    const source = `digraph Parent {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      triage [type="subgraph", graph_ref="triage.dot"]
      bug [shape=parallelogram, tool_command="echo bug"]
      start -> triage
      triage -> bug [condition="outcome=bug"]
      triage -> exit [condition="outcome=success"]
      bug -> exit
    }`;
    const { dir, graph } = pipelines({ 'parent.dot': source, 'triage.dot': child });
    const { result } = await runDot(graph, {
      workdir: dir,
      backend: createSimulationBackend({ script: { classify: ['bug'] } }),
    });
    expect(result.completedNodes).toEqual(['start', 'triage', 'bug', 'exit']);
    expect(result.nodeOutcomes.triage?.status).toBe('bug');
  });

  it('nests: a child may itself contain subgraph nodes, each with its run directory under its stage', async () => {
    const grandchild = `digraph Leaf {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      leaf [shape=parallelogram, tool_command="printf leaf-ran"]
      start -> leaf -> exit
    }`;
    const middle = `digraph Middle {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      inner [type="subgraph", graph_ref="leaf/leaf.dot"]
      start -> inner -> exit
    }`;
    const { dir, graph } = pipelines({
      'parent.dot': parent('middle.dot'),
      'middle.dot': middle,
      'leaf/leaf.dot': grandchild,
    });
    const { result, logsRoot, events } = await runDot(graph, { workdir: dir });
    expect(result.completedNodes).toEqual(['start', 'checks', 'review', 'exit']);
    expect(result.nodeOutcomes.checks?.contextUpdates?.tool_stdout).toBe('leaf-ran');
    expect(readText(join(logsRoot, 'checks', 'child', 'inner', 'child', 'leaf', 'stdout.txt'))).toBe(
      'leaf-ran',
    );
    const leaf = events.find((event) => event.type === 'stage.completed' && event.nodeId === 'leaf');
    expect(leaf?.branchPath).toEqual(['child:checks', 'child:inner']);
  });

  it('fails without retrying when graph_ref does not exist, naming the path', async () => {
    const { dir, graph } = pipelines({ 'parent.dot': parent('missing/pipeline.dot', ', max_retries=2') });
    const { result } = await runDot(graph, { workdir: dir });
    expect(result.completedNodes).toEqual(['start', 'checks', 'fix', 'exit']);
    expect(result.nodeOutcomes.checks).toMatchObject({
      status: 'fail',
      failureReason: `child pipeline ${join(dir, 'missing', 'pipeline.dot')} cannot be read (no such file); check graph_ref, which is relative to the parent DOT file`,
    });
    expect(result.nodeOutcomes.checks?.retryable).toBe(false);
  });

  it('refuses a cycle of graph_refs with the chain instead of recursing', async () => {
    const { dir, graph } = pipelines({ 'a.dot': parent('b.dot'), 'b.dot': parent('a.dot') });
    const { result } = await runDot(graph, { workdir: dir });
    expect(result.completedNodes).toEqual(['start', 'checks', 'fix', 'exit']);
    const reason = result.nodeOutcomes.checks?.failureReason ?? '';
    expect(reason).toContain(`child pipeline ${join(dir, 'b.dot')} is invalid:`);
    expect(reason).toContain(
      `leads back to ${join(dir, 'b.dot')}, a pipeline that includes this one: ${join(dir, 'b.dot')} → ${join(dir, 'a.dot')} → ${join(dir, 'b.dot')}`,
    );
  });

  it("cancels the child, and kills its commands, on the node's timeout", async () => {
    const child = `digraph Slow {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      wait [shape=parallelogram, tool_command="sleep 600 & echo $! > sleeper.pid; wait"]
      start -> wait -> exit
    }`;
    const { dir, graph } = pipelines({
      'parent.dot': parent('slow.dot', ', timeout="1500ms"'),
      'slow.dot': child,
    });
    // The node's timeout runs on the test's clock: it fires once the child's command runs, however slow its start.
    const clock = createTestClock({ autoAdvance: false });
    const running = runDot(graph, { workdir: dir, clock });
    await waitForFile(join(dir, 'sleeper.pid'));
    await clock.advance(1500);
    const { result } = await running;
    expect(result.completedNodes).toEqual(['start', 'checks', 'fix', 'exit']);
    expect(result.nodeOutcomes.checks?.failureReason).toBe('timeout after 1.5s');
    expect(await waitUntilDead(Number(readText(join(dir, 'sleeper.pid'))), 30_000)).toBe(true);
  });

  it('gives each attempt a fresh child run directory', async () => {
    const child = `digraph Flaky {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      once [shape=parallelogram, tool_command="if [ -f tried ]; then echo ok; else touch tried; exit 1; fi"]
      start -> once -> exit
    }`;
    const { dir, graph } = pipelines({
      'parent.dot': parent('flaky.dot', ', max_retries=1'),
      'flaky.dot': child,
    });
    const { result, logsRoot } = await runDot(graph, { workdir: dir });
    expect(result.completedNodes).toEqual(['start', 'checks', 'review', 'exit']);
    expect(readdirSync(join(logsRoot, 'checks')).filter((name) => name.startsWith('child'))).toEqual([
      'child',
      'child-2',
    ]);
    expect(readText(join(logsRoot, 'checks', 'child-2', 'once', 'stdout.txt'))).toBe('ok\n');
  });

  it('runs the child in a dry run too: its tool nodes are recorded, not run', async () => {
    const child = `digraph Checks {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      touch [shape=parallelogram, tool_command="touch ran.marker"]
      start -> touch -> exit
    }`;
    const { dir, graph } = pipelines({ 'parent.dot': parent('checks.dot'), 'checks.dot': child });
    const { result, logsRoot } = await runDot(graph, {
      workdir: dir,
      registry: createDefaultRegistry({ dryRun: true }),
    });
    expect(result.status).toBe('success');
    expect(existsSync(join(dir, 'ran.marker'))).toBe(false);
    expect(readText(join(logsRoot, 'checks', 'child', 'touch', 'command.sh'))).toBe(
      '#!/bin/sh\ntouch ran.marker\n',
    );
  });

  it('fails a subgraph node without graph_ref', async () => {
    const source = `digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; s [type="subgraph"]; start -> s -> exit }`;
    const dir = tempDir();
    const path = writeDot(dir, 'p.dot', source);
    // prepareGraph reports it (subgraph_ref); the handler refuses it too when a graph skips validation.
    const graph = prepareGraph(source, { filename: path }).graph!;
    const { result } = await runDot(graph, { workdir: dir });
    expect(result.nodeOutcomes.s).toMatchObject({
      status: 'fail',
      failureReason:
        'Subgraph node "s" has no graph_ref; add graph_ref="child.dot" (relative to this DOT file)',
      retryable: false,
    });
  });

  it('expands $goal and $context.<key> in var.* values with the parent context of the moment', async () => {
    const child = `digraph Review {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      start -> exit
    }`;
    const { dir, graph } = pipelines({
      'main/pipeline.dot': parent(
        '../review-core/pipeline.dot',
        ', var.diff_cmd="jj diff --from $context.base@origin --to @", var.brief="$goal (retry $context.round, keep $HOME)", var.plain="as written"',
      ),
      'review-core/pipeline.dot': child,
    });
    const { result, logsRoot } = await runDot(graph, { workdir: dir, context: { base: 'main', round: 2 } });
    expect(result.nodeOutcomes.checks?.status).toBe('success');
    const checkpoint = readJson<{ context: Record<string, unknown> }>(
      join(logsRoot, 'checks', 'child', 'checkpoint.json'),
    );
    expect(checkpoint.context).toMatchObject({
      diff_cmd: 'jj diff --from main@origin --to @',
      brief: 'ship the change (retry 2, keep $HOME)',
      plain: 'as written',
    });
  });

  it('fails without retrying when a var.* value uses an $item.<name> that no foreach around the node binds', async () => {
    // Once passed to the child as the text "$item.file": a wrong value far from its cause.
    const { dir, graph } = pipelines({
      'parent.dot': parent('checks.dot', ', var.path="$item.file", max_retries=2'),
      'checks.dot': 'digraph C { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }',
    });
    const { result, logsRoot } = await runDot(graph, { workdir: dir });
    expect(result.nodeOutcomes.checks).toMatchObject({
      status: 'fail',
      failureReason:
        'Subgraph node "checks": var.path uses $item.file, but the node runs in no foreach body, so no item is bound; write the value in var.path',
    });
    expect(existsSync(join(logsRoot, 'checks', 'child'))).toBe(false);
  });

  it('fails without retrying when a var.* value names a context key that is not set', async () => {
    const { dir, graph } = pipelines({
      'parent.dot': parent('checks.dot', ', var.diff_cmd="git diff $context.base", max_retries=2'),
      'checks.dot': 'digraph C { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }',
    });
    const { result, logsRoot } = await runDot(graph, { workdir: dir });
    expect(result.completedNodes).toEqual(['start', 'checks', 'fix', 'exit']);
    expect(result.nodeOutcomes.checks).toMatchObject({
      status: 'fail',
      failureReason:
        'Subgraph node "checks": var.diff_cmd uses $context.base, but the context has no "base" when the node runs; set it earlier in the run (e.g. attractor run --set base=...) or write the value into var.diff_cmd',
      retryable: false,
    });
    // Nothing ran: the child was never started.
    expect(existsSync(join(logsRoot, 'checks', 'child'))).toBe(false);
  });
});

describe('subgraph handler: a sub-pipeline as a typed function (README "Typed data")', () => {
  /** review-one.dot: inputs `file: string, strict?: boolean`, outputs `verdict, seen`; it also writes `scratch`. */
  const reviewOne = `digraph ReviewOne {
  graph [inputs="file: string, strict?: boolean", outputs="verdict, seen"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  note [shape=parallelogram, tool_command="echo '{\\"scratch\\": \\"child only\\"}'", output_schema="scratch: string", out_map="scratch -> scratch"]
  check [shape=parallelogram, output_schema="verdict: string, seen: string", out_map="verdict -> verdict, seen -> seen",
         tool_command="printf '{\\"verdict\\": \\"approve\\", \\"seen\\": \\"%s strict=%s\\"}' \\"$input.file\\" \\"$input.strict\\""]
  start -> note -> check -> exit
}
`;
  const caller = (attributes: string) => `digraph Caller {
  graph [inputs="repo: string"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  review [type="subgraph", graph_ref="review-one.dot"${attributes}]
  approve [shape=parallelogram, tool_command="echo approved"]
  start -> review
  review -> approve [condition="context.review.verdict=approve"]
  review -> exit
  approve -> exit
}
`;

  it('gives the child its input.<name> attributes, expanded and typed, and maps only its output by out_map', async () => {
    const { dir, graph } = pipelines({
      'caller.dot': caller(
        ', input.file="$context.target", input.strict="$context.strict", out_map="verdict -> review.verdict, seen -> review.seen"',
      ),
      'review-one.dot': reviewOne,
    });
    const { result, logsRoot } = await runDot(graph, {
      workdir: dir,
      inputs: { repo: 'acme/api' },
      context: { target: 'src/a.ts', strict: 'true' },
    });
    expect(result.status).toBe('success');
    // The child saw its inputs as a top-level run does (strict parsed as a boolean), and not the caller's inputs.
    const child = readJson<{ context: Record<string, unknown> }>(
      join(logsRoot, 'review', 'child', 'checkpoint.json'),
    );
    expect(child.context).toMatchObject({ 'input.file': 'src/a.ts', 'input.strict': true });
    expect(child.context['input.repo']).toBeUndefined();
    expect(child.context.scratch).toBe('child only');
    // Only the output came back, under the out_map key; the child's scratch and tool.* writes stayed in the child.
    expect(result.nodeOutcomes.review?.contextUpdates).toEqual({
      'review.verdict': 'approve',
      'review.seen': 'src/a.ts strict=true',
    });
    expect(result.context.get('scratch')).toBeUndefined();
    expect(result.context.get('tool.output')).toBe('approved\n');
    // The caller routed on the mapped output.
    expect(result.completedNodes).toEqual(['start', 'review', 'approve', 'exit']);
  });

  it('maps each output under <node id>.<key> without out_map, and expands $input.<name> of the caller', async () => {
    const { dir, graph } = pipelines({
      'caller.dot': caller(', input.file="$input.repo/main.ts"'),
      'review-one.dot': reviewOne,
    });
    const { result } = await runDot(graph, { workdir: dir, inputs: { repo: 'acme' } });
    expect(result.nodeOutcomes.review?.contextUpdates).toEqual({
      'review.verdict': 'approve',
      'review.seen': 'acme/main.ts strict=',
    });
  });

  it('fails the node without retrying, naming the field, the type, the value and the attribute to set', async () => {
    const { dir, graph } = pipelines({
      'caller.dot': caller(', input.strict="maybe", input.extra="1", max_retries=2'),
      'review-one.dot': reviewOne,
    });
    const { result, logsRoot } = await runDot(graph, { workdir: dir, inputs: { repo: 'acme' } });
    expect(result.nodeOutcomes.review).toMatchObject({
      status: 'fail',
      retryable: false,
      failureReason: [
        'Subgraph node "review" (graph_ref="review-one.dot"): The inputs of graph "ReviewOne" do not match its declaration (inputs="file: string, strict?: boolean"):',
        '  - input "file" is required and missing (expected a string)',
        '  - input "extra" is not declared',
        '  - input "strict" must be true or false, got "maybe"',
        'Fix: set input.file="...", input.strict="..." on "review" (a value, or $context.<key>, $input.<name>, $item.<name>); remove input.extra from "review" or declare it in the inputs of review-one.dot.',
      ].join('\n'),
    });
    // The child never started.
    expect(existsSync(join(logsRoot, 'review', 'child'))).toBe(false);
  });

  it('returns nothing from a failing child with outputs, and warns about an out_map output the child did not set', async () => {
    const failing = reviewOne
      .replace('start -> note -> check -> exit', 'start -> note -> check -> boom -> exit')
      .replace(
        '  start -> note',
        '  boom [shape=parallelogram, tool_command="echo broken; exit 1"]\n  start -> note',
      );
    const broken = pipelines({ 'caller.dot': caller(', input.file="a.ts"'), 'review-one.dot': failing });
    const failed = await runDot(broken.graph, { workdir: broken.dir, inputs: { repo: 'acme' } });
    expect(failed.result.nodeOutcomes.review).toMatchObject({ status: 'fail', contextUpdates: {} });
    expect(failed.result.nodeOutcomes.review?.failureReason).toContain('exited with code 1');
    expect(failed.result.context.get('tool.output')).toBeUndefined();

    const partial = pipelines({
      'caller.dot': caller(
        ', input.file="a.ts", out_map="verdict -> review.verdict, missing -> review.missing"',
      ),
      'review-one.dot': reviewOne.replace('outputs="verdict, seen"', 'outputs="verdict, seen, missing"'),
    });
    const { result, events } = await runDot(partial.graph, {
      workdir: partial.dir,
      inputs: { repo: 'acme' },
    });
    const warning =
      'out_map of "review": the output has no field "missing", so "review.missing" is not set (the output has "verdict", "seen")';
    expect(result.nodeOutcomes.review?.contextUpdates).toEqual({ 'review.verdict': 'approve' });
    expect(result.nodeOutcomes.review?.notes).toContain(warning);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'stage.log', level: 'warn', message: warning }),
    );
  });

  it('keeps every changed key flowing back from a child without outputs, and its inputs still typed', async () => {
    const { dir, graph } = pipelines({
      'caller.dot': caller(', input.file="src/b.ts"'),
      'review-one.dot': reviewOne.replace(', outputs="verdict, seen"', ''),
    });
    const { result } = await runDot(graph, { workdir: dir, inputs: { repo: 'acme' } });
    expect(result.nodeOutcomes.review?.contextUpdates).toMatchObject({
      scratch: 'child only',
      verdict: 'approve',
      seen: 'src/b.ts strict=',
      'tool.exit_code': 0,
    });
    expect(result.context.get('scratch')).toBe('child only');
  });
});
