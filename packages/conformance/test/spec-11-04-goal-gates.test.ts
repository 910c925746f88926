/** Spec §11.4 Goal Gate Enforcement: one test per checkbox, through runPipeline. */
import { join } from 'node:path';
import type { Checkpoint } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { readJson, runDot } from './support/run-dot.js';
import { scriptedRegistry } from './support/scripted.js';

const GATED = `digraph G {
  graph [retry_target=implement]
  start [shape=Mdiamond]; exit [shape=Msquare]
  implement [prompt="i", goal_gate=true]
  review [prompt="r"]
  start -> implement
  implement -> review
  implement -> review [condition="outcome=fail", label="Review anyway"]
  review -> exit
}`;

describe('§11.4 Goal Gate Enforcement', () => {
  it('Nodes with `goal_gate=true` are tracked throughout execution', async () => {
    const { registry } = scriptedRegistry({ implement: ['partial_success'] });
    const { result, logsRoot } = await runDot(GATED, { registry });
    expect(result.status).toBe('success');
    // The latest outcome of every node, gates included, is part of the result and of the checkpoint.
    expect(result.nodeOutcomes.implement).toMatchObject({ status: 'partial_success' });
    const checkpoint = readJson<Checkpoint>(join(logsRoot, 'checkpoint.json'));
    expect(checkpoint.node_outcomes.implement).toMatchObject({ status: 'partial_success' });
  });

  it('Before allowing exit via a terminal node, the engine checks all goal gate nodes have status `SUCCESS` or `PARTIAL_SUCCESS`', async () => {
    // implement fails but a fail edge still leads on to review and the exit: the exit check catches it and jumps
    // to the graph's retry_target.
    const { registry, handler } = scriptedRegistry({ implement: ['fail', 'success'] });
    const { result } = await runDot(GATED, { registry });
    expect(result.status).toBe('success');
    expect(handler.nodeIds()).toEqual(['implement', 'review', 'implement', 'review']);
  });

  it('If any goal gate node has not succeeded, the engine routes to `retry_target` (if configured) instead of exiting', async () => {
    const { registry, handler } = scriptedRegistry({
      implement: ['success', 'success'],
      review: ['success'],
    });
    const dot = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]
      plan [prompt="p"]
      implement [prompt="i", goal_gate=true, retry_target=plan]
      start -> plan -> implement -> exit
    }`;
    const failing = scriptedRegistry({ implement: ['fail', 'success'] });
    const { result, events } = await runDot(dot, { registry: failing.registry });
    expect(result.status).toBe('success');
    expect(failing.handler.nodeIds()).toEqual(['plan', 'implement', 'plan', 'implement']);
    // The exit node ran once, after the gate was satisfied.
    expect(events.filter((event) => event.type === 'stage.started' && event.nodeId === 'exit')).toHaveLength(
      1,
    );
    // Control: all satisfied, no jump.
    const ok = await runDot(dot, { registry });
    expect(handler.nodeIds()).toEqual(['plan', 'implement']);
    expect(ok.result.status).toBe('success');
  });

  it('If no retry_target and goal gates unsatisfied, pipeline outcome is "fail"', async () => {
    const { registry } = scriptedRegistry({ implement: ['fail'] });
    const { result } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        implement [prompt="i", goal_gate=true]
        start -> implement -> exit
      }`,
      { registry },
    );
    expect(result.status).toBe('fail');
    expect(result.failureReason).toContain('implement');
    expect(result.completedNodes).not.toContain('exit');
  });
});
