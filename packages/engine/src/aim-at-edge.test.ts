import { type Graph, prepareGraph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { aimAtEdge } from './aim-at-edge.js';
import { Context } from './context.js';
import { selectEdge } from './select-edge.js';

function graphOf(body: string): Graph {
  const { graph, diagnostics } = prepareGraph(
    `digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n${body}\n}`,
  );
  if (graph === undefined) throw new Error(JSON.stringify(diagnostics));
  return graph;
}

function edge(graph: Graph, from: string, to: string) {
  const found = graph.outgoing(from).find((candidate) => candidate.to === to);
  if (found === undefined) throw new Error(`no edge ${from} -> ${to}`);
  return found;
}

const simulated = { last_response: '[Simulated] Response for stage: review' };

describe('aimAtEdge (edge selection, spec §3.3, in reverse)', () => {
  it('puts a word a `contains` condition wants into the response, and leaves it out for `!contains`', () => {
    const graph = graphOf(`
  review -> ship [condition="context.last_response contains APPROVED"]
  review -> rework [condition="context.last_response !contains APPROVED"]`);
    const context = new Context();
    const ship = aimAtEdge({ graph, path: [edge(graph, 'review', 'ship')], context, baseUpdates: simulated });
    expect(ship?.status).toBe('success');
    expect(ship?.chosenKeys).toEqual(['last_response']);
    expect(ship?.contextUpdates.last_response).toBe(`${simulated.last_response}\nAPPROVED`);
    const rework = aimAtEdge({
      graph,
      path: [edge(graph, 'review', 'rework')],
      context,
      baseUpdates: simulated,
    });
    expect(rework).toMatchObject({ status: 'success', chosenKeys: [], contextUpdates: simulated });
  });

  it('gives the preferred label a condition compares with, and routes unconditional edges by label or target', () => {
    const graph = graphOf(`
  score -> report [condition="preferred_label=scored"]
  score -> retry_it [label="Retry"]
  score -> give_up [label="Give up"]`);
    const context = new Context();
    expect(aimAtEdge({ graph, path: [edge(graph, 'score', 'report')], context })).toMatchObject({
      status: 'success',
      preferredLabel: 'scored',
    });
    // Without hints the lexically first unconditional edge wins; with them the stage names its target.
    const giveUp = aimAtEdge({ graph, path: [edge(graph, 'score', 'give_up')], context });
    expect(giveUp?.preferredLabel ?? giveUp?.suggestedNextIds?.[0]).toBeDefined();
    expect(aimAtEdge({ graph, path: [edge(graph, 'score', 'retry_it')], context, routingHints: false })).toBe(
      undefined,
    );
    expect(
      aimAtEdge({ graph, path: [edge(graph, 'score', 'give_up')], context, routingHints: false }),
    ).toMatchObject({ status: 'success' });
  });

  it('returns a failure for an outcome=fail edge when the conditions may name the status', () => {
    const graph = graphOf(`
  check -> done [condition="outcome=success"]
  check -> fix [condition="outcome=fail"]`);
    const context = new Context();
    expect(aimAtEdge({ graph, path: [edge(graph, 'check', 'fix')], context })).toBeUndefined();
    expect(
      aimAtEdge({ graph, path: [edge(graph, 'check', 'fix')], context, statusesOfConditions: true }),
    ).toMatchObject({ status: 'fail' });
    expect(
      aimAtEdge({ graph, path: [edge(graph, 'check', 'done')], context, statusesOfConditions: true }),
    ).toMatchObject({ status: 'success' });
  });

  it('sets the values a conditional node after the stage routes on (a path of two edges)', () => {
    const graph = graphOf(`
  gate [shape=diamond]
  plan -> gate
  gate -> go [condition="context.ready=true && context.score >= 8"]
  gate -> wait [condition="context.ready!=true"]
  gate -> plan`);
    const context = new Context({ score: 3 });
    const aim = aimAtEdge({ graph, path: [edge(graph, 'plan', 'gate'), edge(graph, 'gate', 'go')], context });
    expect(aim?.contextUpdates).toEqual({ ready: 'true', score: '8' });
    // Checked as the engine will see it: the stage's updates, then the conditional node's success.
    const after = new Context({ score: 3, ...aim!.contextUpdates, outcome: 'success' });
    expect(
      selectEdge({ edges: graph.outgoing('gate'), outcome: { status: 'success' }, context: after })?.edge.to,
    ).toBe('go');
  });

  it('finds a value for `matches` and numbers for the ordering operators', () => {
    const graph = graphOf(`
  tag -> release [condition="context.version matches \\"^v[0-9]+[.][0-9]+$\\""]
  tag -> small [condition="context.size < 10"]
  tag -> exit`);
    const context = new Context();
    const release = aimAtEdge({ graph, path: [edge(graph, 'tag', 'release')], context });
    expect(release?.contextUpdates.version).toMatch(/^v[0-9]+\.[0-9]+$/);
    expect(aimAtEdge({ graph, path: [edge(graph, 'tag', 'small')], context })?.contextUpdates).toEqual({
      size: '9',
    });
  });

  it('returns undefined for an edge nothing can take: another edge always wins, or the condition never holds', () => {
    const graph = graphOf(`
  a -> b [condition="outcome=success"]
  a -> c [condition="outcome=success"]
  a -> d [condition="outcome=success && outcome=fail"]
  a -> exit`);
    const context = new Context();
    const options = { graph, context, statusesOfConditions: true, statuses: ['success', 'partial_success'] };
    expect(aimAtEdge({ ...options, path: [edge(graph, 'a', 'b')] })).toMatchObject({ status: 'success' });
    expect(aimAtEdge({ ...options, path: [edge(graph, 'a', 'c')] })).toBeUndefined();
    expect(aimAtEdge({ ...options, path: [edge(graph, 'a', 'd')] })).toBeUndefined();
    expect(aimAtEdge({ ...options, path: [edge(graph, 'a', 'exit')] })).toMatchObject({
      status: 'partial_success',
    });
  });

  it('checks the updates the handler really makes (realize), and may not set context when told so', () => {
    const graph = graphOf(`
  check [shape=parallelogram, tool_command="true"]
  check -> fresh [condition="context.tool.output=fresh"]
  check -> stale [condition="context.tool.exit_code!=0"]
  check -> exit`);
    const context = new Context();
    const realize = ({
      status,
      contextUpdates,
    }: {
      status: string;
      contextUpdates: Record<string, unknown>;
    }) => ({
      'tool.output': (contextUpdates['tool.output'] as string | undefined) ?? '',
      'tool.exit_code': status === 'fail' ? 1 : 0,
    });
    const options = { graph, context, statuses: ['success', 'fail'], realize };
    expect(aimAtEdge({ ...options, path: [edge(graph, 'check', 'fresh')] })?.contextUpdates).toMatchObject({
      'tool.output': 'fresh',
    });
    expect(aimAtEdge({ ...options, path: [edge(graph, 'check', 'stale')] })?.status).toBe('fail');
    expect(
      aimAtEdge({ ...options, path: [edge(graph, 'check', 'fresh')], setsContext: false }),
    ).toBeUndefined();
  });
});
