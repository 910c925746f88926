/** Spec §11.12 Cross-Feature Parity Matrix: one test per row, each from DOT source through the public API. */
import { join } from 'node:path';
import { resumePipeline } from '@attractor/engine';
import { createDefaultRegistry, createQueueInterviewer, readParallelResults } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { lint } from './support/lint.js';
import { graphFrom, readText, runDot, tempDir } from './support/run-dot.js';
import { scriptedRegistry } from './support/scripted.js';

describe('§11.12 Cross-Feature Parity Matrix', () => {
  it('Parse a simple linear pipeline (start -> A -> B -> done)', () => {
    const graph = graphFrom(
      'digraph L { start [shape=Mdiamond]; done [shape=Msquare]; A [prompt="a"]; B [prompt="b"]; start -> A -> B -> done }',
    );
    expect([...graph.nodes.keys()]).toEqual(['start', 'done', 'A', 'B']);
    expect(graph.edges.map((edge) => `${edge.from}->${edge.to}`)).toEqual(['start->A', 'A->B', 'B->done']);
    expect(graph.startNode!.id).toBe('start');
    expect(graph.exitNode!.id).toBe('done');
  });

  it('Parse a pipeline with graph-level attributes (goal, label)', () => {
    const graph = graphFrom(
      'digraph L { graph [goal="Fix bug 42", label="Bugfix"]; start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }',
    );
    expect(graph.settings).toMatchObject({ goal: 'Fix bug 42', label: 'Bugfix' });
  });

  it('Parse multi-line node attributes', () => {
    const graph = graphFrom(`digraph L {
      start [shape=Mdiamond]; exit [shape=Msquare]
      work [
        shape=box,
        prompt="line one
line two",
        timeout="2m"
      ]
      start -> work -> exit
    }`);
    expect(graph.node('work')).toMatchObject({ prompt: 'line one\nline two', timeoutMs: 120_000 });
  });

  it('Validate: missing start node -> error', () => {
    expect(lint('digraph L { exit [shape=Msquare]; a [prompt="a"]; a -> exit }', 'start_node')).toEqual([
      'error start_node (graph)',
    ]);
  });

  it('Validate: missing exit node -> error', () => {
    expect(lint('digraph L { start [shape=Mdiamond]; a [prompt="a"]; start -> a }', 'terminal_node')).toEqual(
      ['error terminal_node (graph)'],
    );
  });

  it('Validate: orphan node -> warning [docs/architecture.md "Reachability": asserted as an ERROR, the severity of §7.2\'s table]', () => {
    expect(
      lint(
        'digraph L { start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]; lost [prompt="l"]; start -> a -> exit }',
        'reachability',
      ),
    ).toEqual(['error reachability lost']);
  });

  it('Execute a linear 3-node pipeline end-to-end', async () => {
    const { result, logsRoot } = await runDot(
      'digraph L { start [shape=Mdiamond]; exit [shape=Msquare]; work [prompt="w"]; start -> work -> exit }',
    );
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'work', 'exit']);
    expect(readText(join(logsRoot, 'work', 'response.md'))).toContain('work');
  });

  it('Execute with conditional branching (success/fail paths)', async () => {
    const dot = `digraph L {
      start [shape=Mdiamond]; exit [shape=Msquare]
      test [shape=parallelogram, tool_command="test -f ready.txt"]
      ship [prompt="s"]; fix [prompt="f"]
      start -> test
      test -> ship [condition="outcome=success"]
      test -> fix [condition="outcome=fail"]
      ship -> exit; fix -> exit
    }`;
    const failing = await runDot(dot);
    expect(failing.result.completedNodes).toEqual(['start', 'test', 'fix', 'exit']);
    const workdir = tempDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(workdir, 'ready.txt'), 'yes');
    const passing = await runDot(dot, { workdir });
    expect(passing.result.completedNodes).toEqual(['start', 'test', 'ship', 'exit']);
  });

  it('Execute with retry on failure (max_retries=2)', async () => {
    const { registry, handler } = scriptedRegistry({ flaky: ['fail', 'fail', 'success'] });
    const { result, events } = await runDot(
      'digraph L { start [shape=Mdiamond]; exit [shape=Msquare]; flaky [prompt="f", max_retries=2]; start -> flaky -> exit }',
      { registry },
    );
    expect(result.status).toBe('success');
    expect(handler.calls.map((call) => call.attempt)).toEqual([1, 2, 3]);
    expect(events.filter((event) => event.type === 'stage.retrying')).toHaveLength(2);
    const exhausted = scriptedRegistry({ flaky: ['fail', 'fail', 'fail', 'success'] });
    const failed = await runDot(
      'digraph L { start [shape=Mdiamond]; exit [shape=Msquare]; flaky [prompt="f", max_retries=2]; start -> flaky -> exit }',
      { registry: exhausted.registry },
    );
    expect(failed.result.status).toBe('fail');
    expect(exhausted.handler.calls).toHaveLength(3);
  });

  const GATE = `digraph L {
    start [shape=Mdiamond]; exit [shape=Msquare]
    implement [prompt="i", goal_gate=true]
    start -> implement
    implement -> exit
    implement -> exit [condition="outcome=fail", label="Give up"]
  }`;

  it('Goal gate blocks exit when unsatisfied', async () => {
    const { registry } = scriptedRegistry({ implement: ['fail'] });
    const { result } = await runDot(GATE, { registry });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toMatch(/implement/);
  });

  it('Goal gate allows exit when all satisfied', async () => {
    const { registry } = scriptedRegistry({ implement: ['success'] });
    const { result } = await runDot(GATE, { registry });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'implement', 'exit']);
  });

  it('Wait.human presents choices and routes on selection', async () => {
    const interviewer = createQueueInterviewer({ answers: ['F'] });
    const { result } = await runDot(
      `digraph L {
        start [shape=Mdiamond]; exit [shape=Msquare]
        gate [shape=hexagon, label="Merge?"]
        merge [prompt="m"]; fix [prompt="f"]
        start -> gate
        gate -> merge [label="[M] Merge"]
        gate -> fix [label="[F] Fix first"]
        merge -> exit; fix -> exit
      }`,
      { interviewer },
    );
    expect(result.completedNodes).toEqual(['start', 'gate', 'fix', 'exit']);
  });

  const ROUTE = (edges: string) => `digraph L {
    start [shape=Mdiamond]; exit [shape=Msquare]
    decide [prompt="d"]; a [prompt="a"]; b [prompt="b"]; c [prompt="c"]
    start -> decide
    ${edges}
    a -> exit; b -> exit; c -> exit
  }`;

  it('Edge selection: condition match wins over weight', async () => {
    const { result } = await runDot(
      ROUTE(
        'decide -> a [weight=100]; decide -> b [condition="outcome=success", weight=0]; decide -> c [condition="outcome=fail"]',
      ),
    );
    expect(result.completedNodes[2]).toBe('b');
  });

  it('Edge selection: weight breaks ties for unconditional edges', async () => {
    const { result } = await runDot(
      ROUTE('decide -> a [weight=1]; decide -> c [weight=3]; decide -> b [weight=2]'),
    );
    expect(result.completedNodes[2]).toBe('c');
  });

  it('Edge selection: lexical tiebreak as final fallback', async () => {
    const { result } = await runDot(ROUTE('decide -> c; decide -> b; decide -> a [weight=0]'));
    expect(result.completedNodes[2]).toBe('a');
  });

  it('Context updates from one node are visible to the next', async () => {
    const { registry, handler } = scriptedRegistry({
      produce: [{ status: 'success', contextUpdates: { 'build.version': 'v1.2.3' } }],
    });
    const { result } = await runDot(
      `digraph L {
        start [shape=Mdiamond]; exit [shape=Msquare]
        produce [prompt="p"]; consume [prompt="c"]
        start -> produce -> consume
        consume -> exit [condition="context.build.version=v1.2.3"]
      }`,
      { registry },
    );
    expect(handler.calls[1]!.context['build.version']).toBe('v1.2.3');
    expect(result.status).toBe('success');
  });

  it('Checkpoint save and resume produces same result', async () => {
    const dot = `digraph L {
      start [shape=Mdiamond]; exit [shape=Msquare]
      a [prompt="a"]; b [prompt="b", max_retries=1]; c [prompt="c"]
      start -> a -> b -> c -> exit
    }`;
    const script = () => ({
      a: [{ status: 'success', contextUpdates: { trail: 'a' } }],
      b: [
        'fail',
        (call: { context: Record<string, unknown> }) => ({
          status: 'success',
          contextUpdates: { trail: `${call.context.trail}b` },
        }),
      ],
      c: [
        (call: { context: Record<string, unknown> }) => ({
          status: 'success',
          contextUpdates: { trail: `${call.context.trail}c` },
        }),
      ],
    });
    // Uninterrupted.
    const whole = await runDot(dot, { registry: scriptedRegistry(script() as never).registry });
    // Interrupted after b completes (cancelled through the run's AbortSignal), then resumed.
    const controller = new AbortController();
    const interrupted = await runDot(dot, {
      registry: scriptedRegistry(script() as never).registry,
      abortSignal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'checkpoint.saved' && event.nodeId === 'b') controller.abort();
      },
    });
    expect(interrupted.result.status).toBe('cancelled');
    // A fresh registry whose b would fail first again: the retry state restored from the checkpoint
    // means b is not re-run at all.
    const resumedRegistry = scriptedRegistry(script() as never);
    const resumed = await resumePipeline({
      graph: graphFrom(dot),
      registry: resumedRegistry.registry,
      logsRoot: interrupted.logsRoot,
    });
    expect(resumedRegistry.handler.nodeIds()).toEqual(['c']);
    expect(resumed.status).toBe(whole.result.status);
    expect(resumed.completedNodes).toEqual(whole.result.completedNodes);
    expect(resumed.context.get('trail')).toBe('abc');
    expect(resumed.context.get('trail')).toBe(whole.result.context.get('trail'));
    expect(
      Object.fromEntries(Object.entries(resumed.nodeOutcomes).map(([id, outcome]) => [id, outcome.status])),
    ).toEqual(
      Object.fromEntries(
        Object.entries(whole.result.nodeOutcomes).map(([id, outcome]) => [id, outcome.status]),
      ),
    );
  });

  it('Stylesheet applies model override to nodes by shape', () => {
    const graph = graphFrom(`digraph L {
      graph [model_stylesheet="box { llm_model: big-model; } hexagon { llm_model: none; }"]
      start [shape=Mdiamond]; exit [shape=Msquare]
      a [prompt="a"]; b [shape=box, prompt="b"]; t [shape=parallelogram, tool_command="true"]
      start -> a -> b -> t -> exit
    }`);
    expect(graph.node('a')!.llmModel).toBe('big-model');
    expect(graph.node('b')!.llmModel).toBe('big-model');
    expect(graph.node('t')!.llmModel).toBeUndefined();
  });

  it('Prompt variable expansion ($goal) works', async () => {
    const { logsRoot } = await runDot(
      'digraph L { graph [goal="Add dark mode"]; start [shape=Mdiamond]; exit [shape=Msquare]; plan [prompt="Plan: $goal. Then $goal again."]; start -> plan -> exit }',
    );
    expect(readText(join(logsRoot, 'plan', 'prompt.md'))).toContain(
      'Plan: Add dark mode. Then Add dark mode again.',
    );
  });

  it('Parallel fan-out and fan-in complete correctly', async () => {
    const { result } = await runDot(`digraph L {
      start [shape=Mdiamond]; exit [shape=Msquare]
      fan [shape=component]
      lint [shape=parallelogram, tool_command="echo lint-ok"]
      test [shape=parallelogram, tool_command="echo test-ok"]
      docs [shape=parallelogram, tool_command="echo docs-broken >&2; exit 1"]
      join [shape=tripleoctagon]
      report [prompt="Report"]
      start -> fan
      fan -> lint; fan -> test; fan -> docs
      lint -> join; test -> join; docs -> join
      join -> report -> exit
    }`);
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'fan', 'join', 'report', 'exit']);
    // wait_all with one failing branch: partial success (docs/architecture.md "Parallel results").
    expect(result.nodeOutcomes.fan).toMatchObject({ status: 'partial_success' });
    const branches = readParallelResults(result.context.get('parallel.results')) ?? [];
    expect(branches.map((branch) => [branch.branch, branch.status])).toEqual([
      ['lint', 'success'],
      ['test', 'success'],
      ['docs', 'fail'],
    ]);
    expect(['lint', 'test']).toContain(result.context.get('parallel.fan_in.best_id'));
  });

  it('Custom handler registration and execution works', async () => {
    const registry = createDefaultRegistry().register('acme.count', {
      async execute({ node, context }) {
        const count = Number(context.get('count') ?? 0) + Number(node.attributes.step?.value ?? 1);
        return { status: 'success', contextUpdates: { count } };
      },
    });
    const { result } = await runDot(
      `digraph L {
        start [shape=Mdiamond]; exit [shape=Msquare]
        one [type="acme.count", step=2]; two [type="acme.count", step=5]
        start -> one -> two -> exit
      }`,
      { registry },
    );
    expect(result.status).toBe('success');
    expect(result.context.get('count')).toBe(7);
  });

  it('Pipeline with 10+ nodes completes without errors', async () => {
    const interviewer = createQueueInterviewer({ answers: ['A'] });
    const { result, events } = await runDot(
      `digraph Big {
        graph [goal="Ship v2", default_max_retries=1]
        start [shape=Mdiamond]; exit [shape=Msquare]
        spec [prompt="Spec $goal"]; plan [prompt="Plan"]; check_plan [shape=diamond]
        fan [shape=component]
        api [prompt="API"]; ui [prompt="UI"]; db [shape=parallelogram, tool_command="echo migrate"]
        join [shape=tripleoctagon]
        verify [shape=parallelogram, tool_command="echo verified"]
        approve [shape=hexagon, label="Approve release?"]
        release [prompt="Release", goal_gate=true]; rework [prompt="Rework"]
        start -> spec -> plan -> check_plan
        check_plan -> fan [condition="outcome=success"]
        check_plan -> plan [condition="outcome=fail"]
        fan -> api; fan -> ui; fan -> db
        api -> join; ui -> join; db -> join
        join -> verify -> approve
        approve -> release [label="[A] Approve"]
        approve -> rework [label="[R] Rework"]
        rework -> verify
        release -> exit
      }`,
      { interviewer },
    );
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual([
      'start',
      'spec',
      'plan',
      'check_plan',
      'fan',
      'join',
      'verify',
      'approve',
      'release',
      'exit',
    ]);
    expect(events.some((event) => event.type === 'pipeline.failed')).toBe(false);
  });
});
