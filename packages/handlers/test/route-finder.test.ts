/**
 * Simulated runs that find their way (issue 33): stages whose edges test what they said reach the exit, with the
 * real engine, the built-in handlers and the simulation backend.
 */
import type { PipelineEvent } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import {
  createDefaultRegistry,
  createRouteCoverage,
  createRouteFinder,
  createRouteInterviewer,
  createSimulationBackend,
} from '../src/index.js';
import { graphFrom, runDot } from './helpers.js';

/** Runs a pipeline simulated from end to end (a dry run: tool commands are not run), with one route finder. */
function simulate(source: string, seed = 0) {
  const routes = createRouteFinder({ seed });
  return runDot(source, {
    backend: createSimulationBackend({ routes }),
    registry: createDefaultRegistry({ dryRun: true, routes }),
  });
}

/** The `stage.log` messages of the simulation: which edge each stage aimed for. */
function aims(events: readonly PipelineEvent[]): string[] {
  return events.flatMap((event) =>
    event.type === 'stage.log' && /aims for/.test(event.message) ? [`${event.nodeId}: ${event.message}`] : [],
  );
}

describe('simulation that finds its way (createRouteFinder)', () => {
  it('answers with the word a `contains` condition waits for, instead of looping until the visit limit', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      plan [prompt="Plan. Say PLAN_READY when the plan is complete."]
      start -> plan
      plan -> exit [condition="context.last_response contains PLAN_READY"]
      plan -> plan [condition="context.last_response !contains PLAN_READY"]
    }`;
    const { result, events } = await simulate(source);
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'plan', 'exit']);
    expect(result.context.get('last_response')).toBe('[Simulated] Response for stage: plan\nPLAN_READY');
    expect(aims(events)).toEqual([
      'plan: [Simulated] aims for plan -> exit [context.last_response contains PLAN_READY]: outcome success, sets last_response',
    ]);
  });

  it('gives the preferred label a condition routes on', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      judge [prompt="Score the draft"]
      redo [prompt="Redo"]
      start -> judge
      judge -> exit [condition="preferred_label=scored"]
      judge -> redo [condition="preferred_label!=scored"]
      redo -> judge
    }`;
    const { result } = await simulate(source);
    expect(result.completedNodes).toEqual(['start', 'judge', 'exit']);
    expect(result.nodeOutcomes.judge).toMatchObject({ status: 'success', preferredLabel: 'scored' });
  });

  it('leaves a loop on outcome=success of a check, and fails a check to take the loop when that is the way out', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      implement [prompt="Implement"]
      check [prompt="Check", max_retries=2]
      report [prompt="Report"]
      start -> implement -> check
      check -> report [condition="outcome=success"]
      check -> implement [condition="outcome=fail"]
      report -> exit
    }`;
    const plain = await simulate(source);
    expect(plain.result.completedNodes).toEqual(['start', 'implement', 'check', 'report', 'exit']);
    // Success routes nowhere but into the loop; the way out is a failure, which is not retried.
    const inverted = source
      .replace('check -> report [condition="outcome=success"]', 'check -> report [condition="outcome=fail"]')
      .replace(
        'check -> implement [condition="outcome=fail"]',
        'check -> implement [condition="outcome=success"]',
      );
    const { result, events } = await simulate(inverted);
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'implement', 'check', 'report', 'exit']);
    expect(result.nodeOutcomes.check).toMatchObject({ status: 'fail' });
    expect(events.filter((event) => event.type === 'stage.retrying')).toEqual([]);
  });

  it('sets what a conditional node after the stage tests, and a conditional node with nothing set finds a route itself', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      mode [shape=diamond]
      review [prompt="Review"]
      approved [shape=diamond]
      fix [prompt="Fix"]
      start -> mode
      mode -> review [condition="context.mode=careful"]
      mode -> exit [condition="context.mode=fast"]
      review -> approved
      approved -> exit [condition="context.review.approved=true"]
      approved -> fix [condition="context.review.approved!=true"]
      fix -> review
    }`;
    const { result, events } = await simulate(source);
    expect(result.status).toBe('success');
    // The conditional node after start sets the value itself (nothing before it could): the shortest way.
    expect(result.completedNodes).toEqual(['start', 'mode', 'exit']);
    expect(aims(events)).toEqual([
      'mode: [Simulated] aims for mode -> exit [context.mode=fast]: outcome success, sets mode',
    ]);
    // Started in careful mode, the review sets what the next conditional node tests.
    const careful = await runDot(source, {
      backend: createSimulationBackend({ routes: createRouteFinder() }),
      registry: createDefaultRegistry({ dryRun: true, routes: createRouteFinder() }),
      context: { mode: 'careful' },
    });
    expect(careful.result.completedNodes).toEqual(['start', 'mode', 'review', 'approved', 'exit']);
    expect(careful.result.context.get('review.approved')).toBe('true');
  });

  it('takes the same route for the same seed, and ties may go another way with another seed', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      pick [prompt="Pick one"]
      left [prompt="Left"]
      right [prompt="Right"]
      start -> pick
      pick -> left [condition="context.side=left"]
      pick -> right [condition="context.side=right"]
      left -> exit
      right -> exit
    }`;
    const routeOf = async (seed: number) => (await simulate(source, seed)).result.completedNodes.join(' ');
    const first = await routeOf(1);
    expect(await routeOf(1)).toBe(first);
    const seen = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) seen.add(await routeOf(seed));
    expect(seen).toEqual(new Set(['start pick left exit', 'start pick right exit']));
  });

  it('with coverage, takes an edge not taken yet and each loop twice, and answers gates with the other choices', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      implement [prompt="Implement"]
      check [prompt="Check"]
      gate [shape=hexagon, label="Ship it?"]
      start -> implement -> check
      check -> gate [condition="outcome=success"]
      check -> implement [condition="outcome=fail"]
      gate -> exit [label="[S] Ship"]
      gate -> implement [label="[R] Rework"]
    }`;
    const graph = graphFrom(source);
    const coverage = createRouteCoverage(graph);
    const routes: string[] = [];
    for (let run = 0; run < 4 && graph.edges.some((edge) => coverage.isWanted(edge)); run++) {
      const finder = createRouteFinder({ coverage });
      const { result } = await runDot(graph, {
        backend: createSimulationBackend({ routes: finder }),
        registry: createDefaultRegistry({ dryRun: true, routes: finder }),
        interviewer: createRouteInterviewer({ graph, routes: finder }),
        onEvent: (event) => coverage.observe(event),
      });
      expect(result.status).toBe('success');
      routes.push(result.completedNodes.join(' '));
      coverage.finishRun();
    }
    // Every edge taken as often as wanted: the loops (check -> implement, gate -> implement) twice.
    expect(graph.edges.filter((edge) => coverage.isWanted(edge))).toEqual([]);
    expect(
      graph.edges.map((edge) => `${edge.from}->${edge.to}:${coverage.wanted(edge)}:${coverage.taken(edge)}`),
    ).toEqual([
      'start->implement:1:2',
      'implement->check:2:6',
      'check->gate:2:4',
      'check->implement:2:2',
      'gate->exit:1:2',
      'gate->implement:2:2',
    ]);
    // The first run takes the shortest way; the second the loops, each twice, and the gate's other choice.
    expect(routes).toEqual([
      'start implement check gate exit',
      'start implement check gate implement check implement check implement check gate implement check gate exit',
    ]);
  });

  it('counts a foreach body edge once per item and the edge from the last stage of each item to the join', async () => {
    const graph = graphFrom(`digraph G {
      graph [state="files: append"]
      start [shape=Mdiamond]
      exit [shape=Msquare]
      each [type="foreach", over="files"]
      check [shape=parallelogram, tool_command="true"]
      join [shape=tripleoctagon]
      start -> each -> check -> join -> exit
    }`);
    const coverage = createRouteCoverage(graph);
    const { result } = await runDot(graph, {
      backend: createSimulationBackend(),
      registry: createDefaultRegistry({ dryRun: true }),
      context: { files: ['a', 'b', 'c'] },
      onEvent: (event) => coverage.observe(event),
    });
    expect(result.status).toBe('success');
    coverage.finishRun();
    expect(graph.edges.map((edge) => `${edge.from}->${edge.to}:${coverage.taken(edge)}`)).toEqual([
      'start->each:1',
      'each->check:3',
      'check->join:3',
      'join->exit:1',
    ]);
  });
});
