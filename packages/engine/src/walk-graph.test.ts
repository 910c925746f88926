import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, registryWith, run } from '../test/helpers.js';
import type { Checkpoint } from './run-store.js';
import { createTestGraph } from './test/graph-builder.js';
import { createScriptedHandler } from './test/scripted-handler.js';

describe('goal gates (spec §11.4, docs/architecture.md "Goal gates")', () => {
  const gateGraph = (extra: { retryTarget?: string; maxGateRetries?: number; graphRetry?: string } = {}) =>
    createTestGraph({
      settings: {
        ...(extra.maxGateRetries === undefined ? {} : { maxGateRetries: extra.maxGateRetries }),
        ...(extra.graphRetry === undefined ? {} : { retryTarget: extra.graphRetry }),
      },
      nodes: [
        {
          id: 'implement',
          goalGate: true,
          ...(extra.retryTarget === undefined ? {} : { retryTarget: extra.retryTarget }),
        },
      ],
      edges: [
        'start -> plan -> implement',
        { from: 'implement', to: 'review', condition: 'outcome=success' },
        { from: 'implement', to: 'review', condition: 'outcome=fail' },
        'review -> exit',
      ],
    });

  it('tracks goal-gate nodes and blocks exit while one is unsatisfied, jumping to its retry_target', async () => {
    const handler = createScriptedHandler({ script: { implement: ['fail', 'success'] } });
    const { result } = await run({
      graph: gateGraph({ retryTarget: 'plan' }),
      registry: registryWith(handler),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual([
      'start',
      'plan',
      'implement',
      'review',
      'plan',
      'implement',
      'review',
      'exit',
    ]);
  });

  it('allows exit when every goal gate is satisfied', async () => {
    const handler = createScriptedHandler();
    const { result } = await run({
      graph: gateGraph({ retryTarget: 'plan' }),
      registry: registryWith(handler),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'plan', 'implement', 'review', 'exit']);
  });

  it('fails when a gate is unsatisfied and there is no retry target', async () => {
    const handler = createScriptedHandler({ script: { implement: ['fail'] } });
    const { result } = await run({ graph: gateGraph(), registry: registryWith(handler) });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toBe(
      'goal gate "implement" unsatisfied (outcome=fail) and no retry target: set retry_target on "implement" or on the graph',
    );
  });

  it('uses the graph retry_target when the gate has none', async () => {
    const handler = createScriptedHandler({ script: { implement: ['fail', 'success'] } });
    const { result } = await run({
      graph: gateGraph({ graphRetry: 'implement' }),
      registry: registryWith(handler),
    });
    expect(result.completedNodes).toEqual([
      'start',
      'plan',
      'implement',
      'review',
      'implement',
      'review',
      'exit',
    ]);
  });

  it('fails after max_gate_retries when the retry target reaches exit without passing the gate again', async () => {
    const handler = createScriptedHandler({ script: { implement: ['fail'] } });
    const graph = createTestGraph({
      settings: { maxGateRetries: 2 },
      nodes: [{ id: 'implement', goalGate: true, retryTarget: 'review' }],
      edges: [
        'start -> implement',
        { from: 'implement', to: 'review', condition: 'outcome=fail' },
        'review -> exit',
      ],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toBe(
      'goal gate "implement" still unsatisfied (outcome=fail) after 2 gate retries (max_gate_retries=2)',
    );
    expect(result.completedNodes).toEqual(['start', 'implement', 'review', 'review', 'review']);
  });

  it('does not check a gate the route never visited', async () => {
    const graph = createTestGraph({
      nodes: [{ id: 'optional', goalGate: true }],
      edges: ['start -> a -> exit', 'start -> optional'],
    });
    const handler = createScriptedHandler({
      script: { start: [{ status: 'success', suggestedNextIds: ['a'] }] },
    });
    const { result } = await run({ graph, registry: registryWith(handler, { start: handler }) });
    expect(result.status).toBe('success');
  });
});

describe('loop guards (docs/architecture.md "Loop guards")', () => {
  const loop = (nodeExtra: Record<string, unknown> = {}, settings: Record<string, number> = {}) =>
    createTestGraph({
      settings,
      nodes: [{ id: 'work', ...nodeExtra }],
      edges: [
        'start -> work',
        { from: 'work', to: 'work', condition: 'outcome=success' },
        { from: 'work', to: 'exit', condition: 'outcome=done' },
      ],
    });

  it('max_visits=2 allows exactly two visits', async () => {
    const handler = createScriptedHandler();
    const { result } = await run({ graph: loop({ maxVisits: 2 }), registry: registryWith(handler) });
    expect(handler.nodeIds()).toEqual(['work', 'work']);
    expect(result.status).toBe('fail');
    expect(result.failureReason).toBe('node "work" reached its visit limit (max_visits=2)');
  });

  it('max_node_visits (graph, default 25) bounds visits of every node', async () => {
    const handler = createScriptedHandler();
    const { result } = await run({ graph: loop(), registry: registryWith(handler) });
    expect(handler.nodeIds()).toHaveLength(25);
    expect(result.failureReason).toBe('node "work" reached its visit limit (max_node_visits=25)');
  });

  it('retries inside one visit do not count as visits', async () => {
    const handler = createScriptedHandler({ script: { work: ['fail', 'fail', 'success', 'done'] } });
    const { result } = await run({
      graph: loop({ maxVisits: 2, maxRetries: 2 }),
      registry: registryWith(handler),
    });
    expect(result.status).toBe('success');
    expect(handler.calls.map((call) => [call.visit, call.attempt])).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
      [2, 1],
    ]);
  });

  it('max_steps stops a loop', async () => {
    const handler = createScriptedHandler();
    const { result, logsRoot } = await run({
      graph: loop({}, { maxNodeVisits: 1000, maxSteps: 10 }),
      registry: registryWith(handler),
    });
    expect(result.status).toBe('fail');
    expect(readJson<Checkpoint>(join(logsRoot, 'checkpoint.json'))).toMatchObject({
      state: 'fail',
      next_node: 'work',
      failure_reason: result.failureReason,
    });
    expect(result.completedNodes).toHaveLength(10);
    expect(result.failureReason).toBe(
      'max_steps (10) reached before node "work": a guard against runaway loops; raise max_steps if this pipeline needs more steps',
    );
  });

  it('the maxSteps option overrides the graph', async () => {
    const handler = createScriptedHandler();
    const { result } = await run({
      graph: loop({}, { maxNodeVisits: 1000 }),
      registry: registryWith(handler),
      maxSteps: 4,
    });
    expect(result.completedNodes).toHaveLength(4);
  });

  it('stops a node that fails the same way on 3 consecutive visits as stuck', async () => {
    const handler = createScriptedHandler({
      script: { work: [{ status: 'fail', failureReason: 'tests fail: 3 errors' }] },
    });
    const graph = createTestGraph({
      edges: [
        'start -> work',
        { from: 'work', to: 'fixer', condition: 'outcome=fail' },
        'fixer -> work',
        { from: 'work', to: 'exit', condition: 'outcome=success' },
      ],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toBe(
      'stuck: node "work" failed 3 consecutive visits with the same reason: tests fail: 3 errors',
    );
    expect(result.completedNodes).toEqual(['start', 'work', 'fixer', 'work', 'fixer', 'work']);
  });

  it('does not call a node stuck when its failure reason changes', async () => {
    const handler = createScriptedHandler({
      script: {
        work: [
          { status: 'fail', failureReason: '3 errors' },
          { status: 'fail', failureReason: '2 errors' },
          { status: 'fail', failureReason: '1 error' },
          'success',
        ],
      },
    });
    const graph = createTestGraph({
      edges: [
        'start -> work',
        { from: 'work', to: 'fixer', condition: 'outcome=fail' },
        'fixer -> work',
        { from: 'work', to: 'exit', condition: 'outcome=success' },
      ],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('success');
  });
});

describe('cross-feature parity (spec §11.12, engine rows)', () => {
  it('executes a linear 3-node pipeline end-to-end', async () => {
    const handler = createScriptedHandler();
    const { result } = await run({
      graph: createTestGraph({ edges: ['start -> a -> b -> c -> exit'] }),
      registry: registryWith(handler),
    });
    expect(result.status).toBe('success');
    expect(handler.nodeIds()).toEqual(['a', 'b', 'c']);
  });

  it('executes with conditional branching (success and fail paths)', async () => {
    const graph = createTestGraph({
      nodes: [{ id: 'check', shape: 'diamond' }],
      edges: [
        'start -> work -> check',
        { from: 'check', to: 'good', condition: 'outcome=success' },
        { from: 'check', to: 'bad', condition: 'outcome=fail' },
        'good -> exit',
        'bad -> exit',
      ],
    });
    const passing = createScriptedHandler();
    expect(
      (await run({ graph, registry: registryWith(passing, { conditional: passing }) })).result.completedNodes,
    ).toContain('good');
    const failing = createScriptedHandler({ script: { check: ['fail'] } });
    expect(
      (await run({ graph, registry: registryWith(failing, { conditional: failing }) })).result.completedNodes,
    ).toContain('bad');
  });

  it('executes with retry on failure (max_retries=2)', async () => {
    const handler = createScriptedHandler({ script: { work: ['fail', 'fail', 'success'] } });
    const graph = createTestGraph({
      nodes: [{ id: 'work', maxRetries: 2 }],
      edges: ['start -> work -> exit'],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('success');
    expect(handler.nodeIds()).toEqual(['work', 'work', 'work']);
  });

  it('names the edge each stage was reached along in stage.started (edgeIndex), none after a jump', async () => {
    const graph = createTestGraph({
      nodes: [{ id: 'check', retryTarget: 'fix' }],
      edges: [
        'start -> work -> check',
        { from: 'check', to: 'exit', condition: 'outcome=success' },
        { from: 'check', to: 'exit', condition: 'outcome=partial_success' },
        'fix -> check',
      ],
    });
    const handler = createScriptedHandler({ script: { check: ['fail', 'partial_success'] } });
    const { events, result } = await run({ graph, registry: registryWith(handler) });
    expect(result.completedNodes).toEqual(['start', 'work', 'check', 'fix', 'check', 'exit']);
    const started = events.flatMap((event) =>
      event.type === 'stage.started' ? [[event.nodeId, event.edgeIndex] as const] : [],
    );
    const index = (from: string, to: string, condition = '') =>
      graph.edges.find((edge) => edge.from === from && edge.to === to && edge.condition === condition)!.index;
    expect(started).toEqual([
      ['start', undefined],
      ['work', index('start', 'work')],
      ['check', index('work', 'check')],
      // A failure jumps to retry_target: no edge.
      ['fix', undefined],
      ['check', index('fix', 'check')],
      // Two edges between the same nodes: the one partial_success matched.
      ['exit', index('check', 'exit', 'outcome=partial_success')],
    ]);
  });

  it('makes context updates from one node visible to the next', async () => {
    const handler = createScriptedHandler({
      script: { a: [{ status: 'success', contextUpdates: { 'context.plan': 'v1' } }] },
    });
    await run({
      graph: createTestGraph({ edges: ['start -> a -> b -> exit'] }),
      registry: registryWith(handler),
    });
    expect(handler.calls[1]!.context['context.plan']).toBe('v1');
  });

  it('registers and executes a custom handler by type string', async () => {
    const custom = createScriptedHandler({ fallback: { status: 'success', notes: 'custom ran' } });
    const graph = createTestGraph({
      nodes: [{ id: 'mine', type: 'my_custom_type' }],
      edges: ['start -> mine -> exit'],
    });
    const registry = registryWith(createScriptedHandler());
    registry.register('my_custom_type', custom);
    const { result } = await run({ graph, registry });
    expect(custom.nodeIds()).toEqual(['mine']);
    expect(result.nodeOutcomes.mine?.notes).toBe('custom ran');
  });

  it('completes a pipeline with 10+ nodes without errors', async () => {
    const ids = Array.from({ length: 12 }, (_, index) => `step${index}`);
    const graph = createTestGraph({ edges: [['start', ...ids, 'exit'].join(' -> ')] });
    const { result } = await run({ graph, registry: registryWith(createScriptedHandler()) });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toHaveLength(14);
  });
});
