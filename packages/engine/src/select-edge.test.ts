import { describe, expect, it } from 'vitest';
import { Context } from './context.js';
import type { Outcome } from './outcome.js';
import { normalizeLabel, selectEdge } from './select-edge.js';
import { createTestGraph, type TestEdgeSpec } from './test/graph-builder.js';

function pick(edges: TestEdgeSpec[], outcome: Outcome, values: Record<string, string> = {}) {
  const graph = createTestGraph({ edges });
  return selectEdge({ edges: graph.outgoing(edges[0]!.from), outcome, context: new Context(values) });
}

describe('normalizeLabel (spec §3.3 step 2)', () => {
  it.each([
    ['[Y] Yes, deploy', 'yes, deploy'],
    ['Y) Yes, deploy', 'yes, deploy'],
    ['Y - Yes, deploy', 'yes, deploy'],
    ['  Approve  ', 'approve'],
    ['FIX', 'fix'],
  ])('normalises %j to %j', (label, expected) => {
    expect(normalizeLabel(label)).toBe(expected);
  });
});

describe('selectEdge (spec §3.3)', () => {
  it('returns undefined for a node without outgoing edges', () => {
    expect(selectEdge({ edges: [], outcome: { status: 'success' }, context: new Context() })).toBeUndefined();
  });

  it('prefers a matching condition over a heavier edge', () => {
    const selection = pick(
      [
        { from: 'a', to: 'heavy', weight: 10 },
        { from: 'a', to: 'matched', condition: 'outcome=success' },
      ],
      { status: 'success' },
    );
    expect(selection?.edge.to).toBe('matched');
    expect(selection?.reason).toBe('condition');
  });

  it('breaks ties among matching conditions by weight, then target id', () => {
    const byWeight = pick(
      [
        { from: 'a', to: 'x', condition: 'outcome=success', weight: 1 },
        { from: 'a', to: 'y', condition: 'outcome=success', weight: 5 },
      ],
      { status: 'success' },
    );
    expect(byWeight?.edge.to).toBe('y');
    const lexical = pick(
      [
        { from: 'a', to: 'zeta', condition: 'outcome=success' },
        { from: 'a', to: 'alpha', condition: 'outcome=success' },
      ],
      { status: 'success' },
    );
    expect(lexical?.edge.to).toBe('alpha');
  });

  it('evaluates conditions against the context', () => {
    const edges: TestEdgeSpec[] = [
      { from: 'a', to: 'ready', condition: 'context.tests=passed' },
      { from: 'a', to: 'other' },
    ];
    expect(pick(edges, { status: 'success' }, { tests: 'passed' })?.edge.to).toBe('ready');
    expect(pick(edges, { status: 'success' }, { tests: 'failed' })?.edge.to).toBe('other');
  });

  it('routes a custom outcome word through a condition (docs/architecture.md "Outcomes")', () => {
    const selection = pick(
      [
        { from: 'a', to: 'processing', condition: 'outcome=process' },
        { from: 'a', to: 'done', condition: 'outcome=success' },
      ],
      { status: 'process' },
    );
    expect(selection?.edge.to).toBe('processing');
  });

  it('matches the preferred label after normalisation, first edge wins', () => {
    const selection = pick(
      [
        { from: 'gate', to: 'ship', label: '[A] Approve' },
        { from: 'gate', to: 'ship2', label: 'A) approve' },
        { from: 'gate', to: 'fix', label: '[F] Fix', weight: 9 },
      ],
      { status: 'success', preferredLabel: 'approve' },
    );
    expect(selection?.edge.to).toBe('ship');
    expect(selection?.reason).toBe('preferred_label');
  });

  it('ignores conditional edges for the preferred label', () => {
    const selection = pick(
      [
        { from: 'gate', to: 'conditional', label: 'Approve', condition: 'outcome=fail' },
        { from: 'gate', to: 'plain', label: 'Other' },
      ],
      { status: 'success', preferredLabel: 'Approve' },
    );
    expect(selection?.edge.to).toBe('plain');
    expect(selection?.reason).toBe('weight');
  });

  it('follows suggested next ids in the order of the list, first edge wins', () => {
    const selection = pick(
      [
        { from: 'a', to: 'x', weight: 5 },
        { from: 'a', to: 'y' },
        { from: 'a', to: 'z' },
      ],
      { status: 'success', suggestedNextIds: ['missing', 'z', 'y'] },
    );
    expect(selection?.edge.to).toBe('z');
    expect(selection?.reason).toBe('suggested_next_id');
  });

  it('prefers the label over suggested ids', () => {
    const selection = pick(
      [
        { from: 'a', to: 'x', label: 'go' },
        { from: 'a', to: 'y' },
      ],
      { status: 'success', preferredLabel: 'go', suggestedNextIds: ['y'] },
    );
    expect(selection?.edge.to).toBe('x');
  });

  it('picks the highest weight among unconditional edges', () => {
    const selection = pick(
      [
        { from: 'a', to: 'b', weight: 1 },
        { from: 'a', to: 'c', weight: 3 },
        { from: 'a', to: 'd', weight: 2 },
      ],
      { status: 'success' },
    );
    expect(selection?.edge.to).toBe('c');
    expect(selection?.reason).toBe('weight');
  });

  it('breaks equal weights by the lexically first target id', () => {
    const selection = pick(
      [
        { from: 'a', to: 'charlie' },
        { from: 'a', to: 'bravo' },
        { from: 'a', to: 'delta' },
      ],
      { status: 'success' },
    );
    expect(selection?.edge.to).toBe('bravo');
    expect(selection?.reason).toBe('lexical');
  });

  it('returns undefined when every edge is conditional and none matches', () => {
    expect(pick([{ from: 'a', to: 'b', condition: 'outcome=fail' }], { status: 'success' })).toBeUndefined();
  });

  it('with conditionalOnly, ignores unconditional edges', () => {
    const graph = createTestGraph({ edges: [{ from: 'a', to: 'b' }] });
    const selection = selectEdge({
      edges: graph.outgoing('a'),
      outcome: { status: 'fail' },
      context: new Context(),
      conditionalOnly: true,
    });
    expect(selection).toBeUndefined();
  });
});
