import { describe, expect, it } from 'vitest';
import { registryWith, run } from '../test/helpers.js';
import { Context } from './context.js';
import { evaluateRunCondition } from './evaluate-run-condition.js';
import type { Handler } from './handler.js';
import { createTestGraph } from './test/graph-builder.js';

describe('Outcome.continueAt (docs/architecture.md "Parallel fan-out")', () => {
  const graph = createTestGraph({
    nodes: ['start', 'exit', { id: 'fan', type: 'fan' }, 'a', 'join'],
    edges: ['start -> fan', 'fan -> a', 'a -> join', 'join -> exit'],
  });

  it('continues at the named node instead of following an outgoing edge', async () => {
    const fan: Handler = { execute: async () => ({ status: 'success', continueAt: 'join' }) };
    const ok: Handler = { execute: async () => ({ status: 'success' }) };
    const { result } = await run({ graph, registry: registryWith(ok, { fan }) });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'fan', 'join', 'exit']);
  });

  it('continues there even after a FAIL, so the join decides', async () => {
    const fan: Handler = { execute: async () => ({ status: 'fail', continueAt: 'join', retryable: false }) };
    const ok: Handler = { execute: async () => ({ status: 'success' }) };
    const { result } = await run({ graph, registry: registryWith(ok, { fan }) });
    expect(result.completedNodes).toEqual(['start', 'fan', 'join', 'exit']);
  });

  it('fails the run naming an unknown node', async () => {
    const fan: Handler = { execute: async () => ({ status: 'success', continueAt: 'nowhere' }) };
    const ok: Handler = { execute: async () => ({ status: 'success' }) };
    const { result } = await run({ graph, registry: registryWith(ok, { fan }) });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toBe('node "fan" asked to continue at "nowhere", which is not in the graph');
  });
});

describe('evaluateRunCondition (spec §10)', () => {
  it('resolves context keys with and without the context. prefix', () => {
    const context = new Context({ 'stack.child.status': 'completed' });
    expect(evaluateRunCondition({ condition: 'context.stack.child.status=completed', context })).toBe(true);
    expect(evaluateRunCondition({ condition: 'stack.child.status!=completed', context })).toBe(false);
    expect(evaluateRunCondition({ condition: 'outcome=fail', context, outcome: 'fail' })).toBe(true);
  });
});
