/** Spec §11.7 State and Context: one test per checkbox, through runPipeline / resumePipeline and the run directory. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Checkpoint, Context, type PipelineEvent, resumePipeline } from '@attractor/engine';
import { createSimulationBackend } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { graphFrom, readJson, readText, runDot, tempDir } from './support/run-dot.js';
import { scriptedRegistry } from './support/scripted.js';

describe('§11.7 State and Context', () => {
  it('Context is a key-value store accessible to all handlers', async () => {
    const context = new Context({ a: 1 });
    context.set('b', 'two');
    expect(context.get('a')).toBe(1);
    expect(context.getString('b')).toBe('two');
    expect(context.get('missing', 'default')).toBe('default');
    expect(context.snapshot()).toEqual({ a: 1, b: 'two' });
    // Every handler of a run sees the same store: graph attributes are mirrored, initial values are set.
    const { registry, handler } = scriptedRegistry();
    await runDot(
      'digraph G { graph [goal="Goal"]; start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]; b [prompt="b"]; start -> a -> b -> exit }',
      { registry, context: { ticket: 'ABC-1' } },
    );
    for (const call of handler.calls) {
      expect(call.context).toMatchObject({ 'graph.goal': 'Goal', ticket: 'ABC-1' });
    }
  });

  it('Handlers can read context and return `context_updates` in the Outcome', async () => {
    const { registry, handler } = scriptedRegistry({
      a: [(call) => ({ status: 'success', contextUpdates: { count: Number(call.context.count ?? 0) + 1 } })],
      b: [(call) => ({ status: 'success', contextUpdates: { count: Number(call.context.count) * 10 } })],
    });
    const { result } = await runDot(
      'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]; b [prompt="b"]; start -> a -> b -> exit }',
      { registry, context: { count: 4 } },
    );
    expect(handler.calls.map((call) => call.context.count)).toEqual([4, 5]);
    expect(result.context.get('count')).toBe(50);
  });

  it('Context updates are merged after each node execution', async () => {
    const { registry } = scriptedRegistry({
      a: [{ status: 'success', contextUpdates: { keep: 'a', over: 'a' } }],
      b: [{ status: 'partial_success', preferredLabel: 'Next', contextUpdates: { over: 'b', added: true } }],
    });
    const { result, events } = await runDot(
      'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]; b [prompt="b"]; start -> a -> b -> exit }',
      { registry },
    );
    expect(result.context.snapshot()).toMatchObject({
      keep: 'a',
      over: 'b',
      added: true,
      // The engine also records the outcome and preferred label of the node just run (spec §3.2 step 4).
      outcome: 'success',
      preferred_label: 'Next',
    });
    // The checkpoint after a, before b, holds a's updates only.
    const afterA = events.find(
      (event): event is Extract<PipelineEvent, { type: 'checkpoint.saved' }> =>
        event.type === 'checkpoint.saved' && event.nodeId === 'a',
    );
    expect(afterA).toBeDefined();
  });

  it('Checkpoint is saved after each node completion (current_node, completed_nodes, context, retry counts)', async () => {
    const { registry } = scriptedRegistry({
      a: ['retry', { status: 'fail', failureReason: 'still broken', contextUpdates: { from_a: 1 } }],
    });
    const snapshots: Checkpoint[] = [];
    const dot = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]
      a [prompt="a", max_retries=1]; b [prompt="b"]
      start -> a
      a -> b [condition="outcome=fail"]
      b -> exit
    }`;
    const logsRoot = join(tempDir(), 'run');
    const run = await runDot(dot, {
      registry,
      onEvent: (event) => {
        // The checkpoint is on disk when its event is emitted: read it as it was after each node.
        if (event.type === 'checkpoint.saved')
          snapshots.push(readJson<Checkpoint>(join(logsRoot, 'checkpoint.json')));
      },
      logsRoot,
    });
    expect(run.result.status).toBe('success');
    expect(
      snapshots.map((checkpoint) => [checkpoint.current_node, checkpoint.completed_nodes.length]),
    ).toEqual([
      ['start', 1],
      ['a', 2],
      ['b', 3],
      ['exit', 4],
    ]);
    expect(snapshots[1]).toMatchObject({
      current_node: 'a',
      next_node: 'b',
      completed_nodes: ['start', 'a'],
      node_retries: { a: 1 },
      context: { from_a: 1, outcome: 'fail' },
    });
  });

  it('Resume from checkpoint: load checkpoint -> restore state -> continue from current_node', async () => {
    const dot = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]
      a [prompt="a"]; b [prompt="b"]; c [prompt="c"]
      start -> a -> b -> c -> exit
    }`;
    // First run: b fails (no retries, no fail edge), so the run stops after a with its context saved.
    const first = scriptedRegistry({
      a: [{ status: 'success', contextUpdates: { from_a: 'kept' } }],
      b: ['fail'],
    });
    const { result, logsRoot } = await runDot(dot, { registry: first.registry });
    expect(result.status).toBe('fail');
    expect(readJson<Checkpoint>(join(logsRoot, 'checkpoint.json'))).toMatchObject({ state: 'fail' });
    // Resume with a fixed b: a is not run again, b sees a's context, and the run completes.
    const second = scriptedRegistry();
    const resumed = await resumePipeline({ graph: graphFrom(dot), registry: second.registry, logsRoot });
    expect(resumed.status).toBe('success');
    expect(second.handler.nodeIds()).toEqual(['b', 'c']);
    expect(second.handler.calls[0]!.context.from_a).toBe('kept');
    // completedNodes covers the whole run, read back from events.jsonl: b's failed visit and its re-run.
    expect(resumed.completedNodes).toEqual(['start', 'a', 'b', 'b', 'c', 'exit']);
  });

  it('Artifacts are written to `{logs_root}/{node_id}/` (prompt.md, response.md, status.json)', async () => {
    const { logsRoot } = await runDot(
      'digraph G { graph [goal="g"]; start [shape=Mdiamond]; exit [shape=Msquare]; plan [prompt="Plan $goal"]; start -> plan -> exit }',
      { backend: createSimulationBackend() },
    );
    expect(readdirSync(join(logsRoot, 'plan')).sort()).toEqual(
      expect.arrayContaining(['prompt.md', 'response.md', 'status.json']),
    );
    expect(readText(join(logsRoot, 'plan', 'prompt.md'))).toContain('Plan g');
    expect(readText(join(logsRoot, 'plan', 'response.md'))).toContain('[Simulated] Response for stage: plan');
    expect(existsSync(join(logsRoot, 'manifest.json'))).toBe(true);
    expect(existsSync(join(logsRoot, 'events.jsonl'))).toBe(true);
  });
});
