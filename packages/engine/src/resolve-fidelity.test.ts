import { describe, expect, it } from 'vitest';
import { buildPreamble, PREAMBLE_BUDGET_CHARS } from './build-preamble.js';
import { resolveFidelity, resolveThreadKey } from './resolve-fidelity.js';
import { createTestGraph } from './test/graph-builder.js';

describe('resolveFidelity (spec §5.4)', () => {
  const graph = createTestGraph({
    settings: { defaultFidelity: 'summary:low' },
    nodes: [{ id: 'b', fidelity: 'truncate' }],
    edges: [{ from: 'a', to: 'b', fidelity: 'full' }, 'a -> c'],
  });

  it('prefers the incoming edge, then the node, then the graph default', () => {
    const [edgeToB, edgeToC] = graph.outgoing('a');
    expect(resolveFidelity({ node: graph.node('b')!, edge: edgeToB!, graph })).toBe('full');
    expect(resolveFidelity({ node: graph.node('b')!, graph })).toBe('truncate');
    expect(resolveFidelity({ node: graph.node('c')!, edge: edgeToC!, graph })).toBe('summary:low');
  });

  it('falls back to compact', () => {
    const bare = createTestGraph({ edges: ['a -> b'] });
    expect(resolveFidelity({ node: bare.node('b')!, graph: bare })).toBe('compact');
  });
});

describe('resolveThreadKey (spec §5.4)', () => {
  it('prefers node thread_id, then edge thread_id, then graph default, then class, then previous node', () => {
    const graph = createTestGraph({
      settings: { defaultThread: 'graph-thread' },
      nodes: [
        { id: 'n', threadId: 'node-thread', subgraphClasses: ['outer', 'loop'] },
        { id: 'm', subgraphClasses: ['outer', 'loop'] },
        'o',
      ],
      edges: [{ from: 'p', to: 'n', threadId: 'edge-thread' }],
    });
    const edge = graph.outgoing('p')[0]!;
    expect(resolveThreadKey({ node: graph.node('n')!, edge, graph, previousNodeId: 'p' })).toBe(
      'node-thread',
    );
    expect(resolveThreadKey({ node: graph.node('m')!, edge, graph, previousNodeId: 'p' })).toBe(
      'edge-thread',
    );
    expect(resolveThreadKey({ node: graph.node('m')!, graph, previousNodeId: 'p' })).toBe('graph-thread');
    const noDefault = createTestGraph({
      nodes: [{ id: 'm', subgraphClasses: ['outer', 'loop'] }, 'o'],
      edges: ['p -> m', 'p -> o'],
    });
    expect(resolveThreadKey({ node: noDefault.node('m')!, graph: noDefault, previousNodeId: 'p' })).toBe(
      'loop',
    );
    expect(resolveThreadKey({ node: noDefault.node('o')!, graph: noDefault, previousNodeId: 'p' })).toBe('p');
  });
});

describe('buildPreamble (spec §5.4)', () => {
  const stages = Array.from({ length: 80 }, (_, index) => ({
    node: `stage${index}`,
    status: index % 7 === 0 ? 'fail' : 'success',
    notes: 'n'.repeat(300),
  }));
  const context = { 'context.plan': 'p'.repeat(2000), 'internal.retry_count.a': 1, 'graph.goal': 'g' };

  it('is empty for full', () => {
    expect(buildPreamble({ mode: 'full', goal: 'g', runId: 'r', stages, context })).toBe('');
  });

  it('gives only the goal and run id for truncate', () => {
    expect(buildPreamble({ mode: 'truncate', goal: 'Ship it', runId: 'run-1', stages, context })).toBe(
      'Goal: Ship it\nRun: run-1',
    );
  });

  it('lists stages and context values for compact, leaving internal keys out', () => {
    const text = buildPreamble({
      mode: 'compact',
      goal: 'g',
      runId: 'r',
      stages: stages.slice(0, 3),
      context,
    });
    expect(text).toContain('- stage0: fail');
    expect(text).toContain('- stage2: success');
    expect(text).toContain('context.plan');
    expect(text).not.toContain('internal.retry_count');
  });

  it.each(['compact', 'summary:low', 'summary:medium', 'summary:high'] as const)(
    'stays within the %s budget',
    (mode) => {
      const text = buildPreamble({ mode, goal: 'g', runId: 'r', stages, context });
      expect(text.length).toBeLessThanOrEqual(PREAMBLE_BUDGET_CHARS[mode]);
    },
  );

  it('masks values under secret-named keys at any depth of a context value (issue 34 §12)', () => {
    const secretContext = {
      cfg: { client_secret: 'hunter2-client', nested: [{ apiKey: 'k-7788-9900' }], pin_password: 12345678 },
      'context.list': ['plain', { db: { password: 'pw-in-a-list' } }],
      credentials: { user: 'alice', pass: 'pw-under-a-secret-key' },
    };
    for (const mode of ['compact', 'summary:low', 'summary:medium', 'summary:high'] as const) {
      const text = buildPreamble({ mode, goal: 'g', runId: 'r', stages: [], context: secretContext });
      for (const secret of [
        'hunter2-client',
        'k-7788-9900',
        '12345678',
        'pw-in-a-list',
        'pw-under-a-secret-key',
      ])
        expect(text, `${mode}: ${secret}`).not.toContain(secret);
      expect(text, mode).toContain('cfg');
      expect(text, mode).toContain('plain');
    }
  });

  it('grows with the summary level', () => {
    const lengths = (['summary:low', 'summary:medium', 'summary:high'] as const).map(
      (mode) => buildPreamble({ mode, goal: 'g', runId: 'r', stages, context }).length,
    );
    expect(lengths[0]).toBeLessThan(lengths[1]!);
    expect(lengths[1]).toBeLessThan(lengths[2]!);
  });
});
