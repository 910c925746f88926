import { findJoinNode, type Graph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { Context } from './context.js';
import { type DecisionRules, type DecisionSnapshot, decide, type WalkEvent } from './decide.js';
import type { Outcome } from './outcome.js';
import { createTestGraph } from './test/graph-builder.js';

function snapshot(overrides: Partial<DecisionSnapshot> = {}): DecisionSnapshot {
  return {
    stepCount: 0,
    nodeVisits: {},
    nodeOutcomes: {},
    gateRetries: 0,
    fallbacksTaken: new Set(),
    failureStreaks: {},
    ...overrides,
  };
}

function rulesFor(graph: Graph, context = new Context(), maxSteps = 1000): DecisionRules {
  return {
    graph,
    context,
    maxSteps,
    exitNodeIds: new Set(graph.exitNodes.map((node) => node.id)),
    lastNodeId: 'prev',
    joinOf: (id) => findJoinNode(graph, id),
    fansOut: (id) => graph.node(id)?.shape === 'component',
    callsModel: (id) => graph.node(id)?.shape === 'box',
  };
}

const completed = (nodeId: string, outcome: Outcome): WalkEvent => ({
  type: 'stage.completed',
  nodeId,
  outcome,
});
const fail = (failureReason: string): Outcome => ({ status: 'fail', failureReason });

describe('decide: routing after a stage (spec §3.3, §3.7, docs/architecture.md "Routing dead ends")', () => {
  const routed = createTestGraph({
    nodes: [
      { id: 'work', retryTarget: 'plan', fallbackRetryTarget: 'rescue' },
      { id: 'solo', fallbackRetryTarget: 'rescue' },
      { id: 'fan', shape: 'component' },
      { id: 'join', shape: 'tripleoctagon' },
      'leaf',
    ],
    edges: [
      'start -> plan -> work',
      { from: 'work', to: 'fix', condition: 'outcome=fail && context.kind=lint' },
      { from: 'work', to: 'exit', condition: 'outcome=success' },
      { from: 'gate', to: 'exit', condition: 'outcome=success' },
      'solo -> exit',
      'rescue -> exit',
      'fix -> exit',
      'fan -> a -> join',
      'fan -> b -> join',
      'join -> exit',
    ],
  });

  it.each<[string, DecisionSnapshot, WalkEvent, Context, unknown]>([
    [
      'a matching condition selects its edge',
      snapshot(),
      completed('work', { status: 'success' }),
      new Context(),
      { kind: 'go', nodeId: 'exit' },
    ],
    [
      'a failure follows a matching conditional edge first',
      snapshot(),
      completed('work', fail('lint')),
      new Context({ 'context.kind': 'lint' }),
      { kind: 'go', nodeId: 'fix' },
    ],
    [
      'a failure without a matching edge jumps to retry_target',
      snapshot(),
      completed('work', fail('x')),
      new Context(),
      { kind: 'go', nodeId: 'plan' },
    ],
    [
      'a failure without retry_target takes fallback_retry_target once',
      snapshot(),
      completed('solo', fail('x')),
      new Context(),
      { kind: 'go', nodeId: 'rescue' },
    ],
    [
      'a second failure after the fallback was taken ends the run',
      snapshot({ fallbacksTaken: new Set(['solo']) }),
      completed('solo', fail('x')),
      new Context(),
      { kind: 'end', reason: 'node "solo" failed: x (fallback_retry_target already taken once)' },
    ],
    [
      'a success with no eligible edge fails closed, naming the conditions',
      snapshot(),
      completed('gate', { status: 'partial_success' }),
      new Context(),
      {
        kind: 'end',
        reason:
          'no eligible edge from gate (outcome=partial_success); none of its edge conditions matched: "outcome=success" (-> exit)',
      },
    ],
    [
      'a node without outgoing edges ends the run in success',
      snapshot(),
      completed('leaf', { status: 'success' }),
      new Context(),
      { kind: 'end', end: 'success' },
    ],
    [
      'the exit succeeds on success',
      snapshot(),
      completed('exit', { status: 'success' }),
      new Context(),
      { kind: 'end', end: 'success' },
    ],
    [
      'a failed exit fails the run',
      snapshot(),
      completed('exit', fail('boom')),
      new Context(),
      { kind: 'end', reason: 'exit node "exit" failed: boom' },
    ],
    [
      'continueAt names the next node',
      snapshot(),
      completed('plan', { status: 'success', continueAt: 'fix' }),
      new Context(),
      { kind: 'go', nodeId: 'fix' },
    ],
    [
      'continueAt outside the graph fails',
      snapshot(),
      completed('plan', { status: 'success', continueAt: 'nowhere' }),
      new Context(),
      { kind: 'end', reason: 'node "plan" asked to continue at "nowhere", which is not in the graph' },
    ],
    [
      'a parallel node continues at its join',
      snapshot(),
      completed('fan', { status: 'success' }),
      new Context(),
      { kind: 'go', nodeId: 'join' },
    ],
    [
      'a parallel node prefers a suggested join',
      snapshot(),
      completed('fan', { status: 'success', suggestedNextIds: ['nowhere', 'fix'] }),
      new Context(),
      { kind: 'go', nodeId: 'fix' },
    ],
    [
      'the same failure on a third consecutive visit is stuck',
      snapshot({ failureStreaks: { work: { reason: 'x', count: 2 } } }),
      completed('work', fail('x')),
      new Context(),
      { kind: 'end', reason: 'stuck: node "work" failed 3 consecutive visits with the same reason: x' },
    ],
  ])('%s', (_name, state, event, context, expected) => {
    const decision = decide(state, event, rulesFor(routed, context));
    const next = decision.next;
    if (next.kind === 'end') {
      if ('end' in (expected as object)) expect(next.end.kind).toBe((expected as { end: string }).end);
      else expect(next.end).toMatchObject({ kind: 'fail', reason: (expected as { reason: string }).reason });
    } else expect(next).toMatchObject(expected as object);
  });

  it('counts a failure streak, resets it on a different reason, and clears it on success', () => {
    const rules = rulesFor(routed);
    expect(decide(snapshot(), completed('work', fail('x')), rules).changes).toEqual([
      { kind: 'failure_streak', nodeId: 'work', streak: { reason: 'x', count: 1 } },
    ]);
    const streaks = { work: { reason: 'x', count: 2 } };
    expect(
      decide(snapshot({ failureStreaks: streaks }), completed('work', fail('y')), rules).changes,
    ).toEqual([{ kind: 'failure_streak', nodeId: 'work', streak: { reason: 'y', count: 1 } }]);
    expect(
      decide(snapshot({ failureStreaks: streaks }), completed('work', { status: 'success' }), rules).changes,
    ).toEqual([{ kind: 'failure_streak', nodeId: 'work', streak: undefined }]);
  });

  it('latches the fallback and logs the jump', () => {
    const decision = decide(snapshot(), completed('solo', fail('x')), rulesFor(routed));
    expect(decision.changes).toContainEqual({ kind: 'fallback_taken', nodeId: 'solo' });
    expect(decision.effects).toEqual([
      { kind: 'log', message: 'node solo failed; jumping to fallback_retry_target rescue' },
    ]);
  });

  it('is pure: the snapshot and the context are left as they were', () => {
    const state = snapshot({ failureStreaks: { work: { reason: 'x', count: 1 } } });
    const context = new Context({ a: 1 });
    const before = JSON.stringify({ ...state, fallbacksTaken: [...state.fallbacksTaken] });
    decide(state, completed('solo', fail('x')), rulesFor(routed, context));
    decide(state, completed('work', fail('x')), rulesFor(routed, context));
    expect(JSON.stringify({ ...state, fallbacksTaken: [...state.fallbacksTaken] })).toBe(before);
    expect(context.snapshot()).toEqual({ a: 1 });
  });
});

describe('decide: loop guards before a node (docs/architecture.md "Loop guards")', () => {
  const looped = createTestGraph({
    settings: { maxNodeVisits: 3 },
    nodes: [{ id: 'capped', maxVisits: 1 }],
    edges: ['start -> work -> capped -> exit'],
  });
  const reached = (nodeId: string): WalkEvent => ({ type: 'node.reached', nodeId });

  it.each<[string, DecisionSnapshot, string, number, unknown]>([
    [
      'counts the visit and executes',
      snapshot({ nodeVisits: { work: 1 } }),
      'work',
      1000,
      { kind: 'execute', nodeId: 'work', visit: 2 },
    ],
    [
      'stops past max_steps',
      snapshot({ stepCount: 5 }),
      'work',
      5,
      'max_steps (5) reached before node "work": a guard against runaway loops; raise max_steps if this pipeline needs more steps',
    ],
    [
      'stops past the graph max_node_visits',
      snapshot({ nodeVisits: { work: 3 } }),
      'work',
      1000,
      'node "work" reached its visit limit (max_node_visits=3)',
    ],
    [
      'stops past the node max_visits',
      snapshot({ nodeVisits: { capped: 1 } }),
      'capped',
      1000,
      'node "capped" reached its visit limit (max_visits=1)',
    ],
    [
      'stops at a node that does not exist',
      snapshot(),
      'ghost',
      1000,
      `node "ghost" does not exist in graph "${looped.id}"`,
    ],
  ])('%s', (_name, state, nodeId, maxSteps, expected) => {
    const decision = decide(state, reached(nodeId), rulesFor(looped, new Context(), maxSteps));
    if (typeof expected === 'string') {
      expect(decision.next).toMatchObject({
        kind: 'end',
        end: { kind: 'fail', reason: expected, lastNodeId: 'prev', resumeNodeId: nodeId },
      });
      expect(decision.changes).toEqual([]);
    } else {
      expect(decision.next).toEqual(expected);
      expect(decision.changes).toEqual([
        { kind: 'visits', nodeId, visits: (expected as { visit: number }).visit },
      ]);
    }
  });
});

describe('decide: goal gates at the exit (spec §3.4, docs/architecture.md "Goal gates")', () => {
  const gated = createTestGraph({
    settings: { maxGateRetries: 2 },
    nodes: [
      { id: 'gate', goalGate: true, retryTarget: 'fix' },
      { id: 'bare', goalGate: true },
    ],
    edges: ['start -> gate -> bare -> fix -> exit'],
  });
  const atExit: WalkEvent = { type: 'exit.reached', nodeId: 'exit' };

  it('executes the exit when every gate that ran succeeded, or never ran', () => {
    const decision = decide(
      snapshot({ nodeOutcomes: { gate: { status: 'partial_success' } } }),
      atExit,
      rulesFor(gated),
    );
    expect(decision.next).toEqual({ kind: 'execute', nodeId: 'exit', visit: 1 });
  });

  it('jumps to the retry target of an unsatisfied gate, counting the gate retry', () => {
    const decision = decide(snapshot({ nodeOutcomes: { gate: fail('x') } }), atExit, rulesFor(gated));
    expect(decision.next).toEqual({ kind: 'go', nodeId: 'fix' });
    expect(decision.changes).toEqual([{ kind: 'gate_retry' }]);
    expect(decision.effects).toEqual([
      { kind: 'log', message: 'goal gate gate unsatisfied; jumping to fix' },
    ]);
  });

  it('fails past max_gate_retries', () => {
    const decision = decide(
      snapshot({ nodeOutcomes: { gate: fail('x') }, gateRetries: 2 }),
      atExit,
      rulesFor(gated),
    );
    expect(decision.next).toMatchObject({
      kind: 'end',
      end: {
        reason: 'goal gate "gate" still unsatisfied (outcome=fail) after 2 gate retries (max_gate_retries=2)',
      },
    });
  });

  it('fails when an unsatisfied gate has no retry target', () => {
    const decision = decide(snapshot({ nodeOutcomes: { bare: fail('x') } }), atExit, rulesFor(gated));
    expect(decision.next).toMatchObject({
      kind: 'end',
      end: {
        reason:
          'goal gate "bare" unsatisfied (outcome=fail) and no retry target: set retry_target on "bare" or on the graph',
      },
    });
  });
});
