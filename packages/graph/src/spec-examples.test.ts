import { describe, expect, it } from 'vitest';
import { summarize } from '../test/lint-summary.js';
import { readFixture } from '../test/read-fixture.js';
import { prepareGraph } from './prepare-graph.js';

function prepare(source: string) {
  const { graph, diagnostics } = prepareGraph(source, { filename: 'example.dot' });
  return { graph: graph!, findings: diagnostics.map((d) => `${d.rule} ${summarize(d)}`) };
}

describe('spec example pipelines (§2.13, §8.6, §11.13)', () => {
  it('builds and cleanly validates the simple linear workflow of §2.13', () => {
    const { graph, findings } = prepare(`digraph Simple {
    graph [goal="Run tests and report"]
    rankdir=LR

    start [shape=Mdiamond, label="Start"]
    exit  [shape=Msquare, label="Exit"]

    run_tests [label="Run Tests", prompt="Run the test suite and report results"]
    report    [label="Report", prompt="Summarize the test results"]

    start -> run_tests -> report -> exit
}`);
    expect(graph.settings.goal).toBe('Run tests and report');
    expect(graph.edges.map((edge) => `${edge.from}->${edge.to}`)).toEqual([
      'start->run_tests',
      'run_tests->report',
      'report->exit',
    ]);
    expect(findings).toEqual([]);
  });

  it('builds the branching workflow of §2.13 with its defaults and conditions', () => {
    const { graph, findings } = prepare(readFixture('spec-2-13-branch.dot'));
    expect(graph.node('validate')).toMatchObject({ shape: 'box', timeoutMs: 900_000 });
    expect(graph.node('gate')).toMatchObject({ shape: 'diamond', timeoutMs: 900_000 });
    expect(graph.handlerType(graph.node('gate')!)).toBe('conditional');
    expect(graph.outgoing('gate').map((edge) => edge.condition)).toEqual([
      'outcome=success',
      'outcome!=success',
    ]);
    // The diamond's default timeout is inherited from `node [...]`, so it is not reported as inert.
    expect(findings).toEqual([]);
  });

  it('builds the human gate example of §2.13; its edge-only nodes have no prompt', () => {
    const { graph, findings } = prepare(`digraph Review {
    rankdir=LR

    start [shape=Mdiamond, label="Start"]
    exit  [shape=Msquare, label="Exit"]

    review_gate [
        shape=hexagon,
        label="Review Changes",
        type="wait.human"
    ]

    start -> review_gate
    review_gate -> ship_it [label="[A] Approve"]
    review_gate -> fixes   [label="[F] Fix"]
    ship_it -> exit
    fixes -> review_gate
}`);
    expect(graph.handlerType(graph.node('review_gate')!)).toBe('wait.human');
    expect(findings).toEqual([
      'prompt_on_llm_nodes warning 14:20 ship_it',
      'prompt_on_llm_nodes warning 15:20 fixes',
    ]);
  });

  it('validates the §8.6 stylesheet example with no findings', () => {
    expect(prepare(readFixture('spec-8-6-stylesheet.dot')).findings).toEqual([]);
  });

  it('parses the §11.13 smoke test: 5 nodes, 6 edges, no errors', () => {
    const { graph, findings } = prepare(readFixture('spec-11-13-smoke.dot'));
    expect(graph.settings.goal).toBe('Create a hello world Python script');
    expect(graph.nodes.size).toBe(5);
    expect(graph.edges).toHaveLength(6);
    expect(graph.node('plan')!.prompt).toBe(
      'Plan how to create a hello world script for: Create a hello world Python script',
    );
    expect(findings.filter((finding) => finding.includes(' error '))).toEqual([]);
    expect(findings).toEqual(['goal_gate_has_retry warning 6:82 implement']);
  });
});
