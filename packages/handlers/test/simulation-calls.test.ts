import { createFileRunStore, type PipelineEvent } from '@attractor/engine';
import { createTestClock } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { countSimulationCalls, readSimulationCalls } from '../src/simulation-calls.js';
import { pipelines, runDot } from './helpers.js';

const loop = `digraph G {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  build [prompt="build", max_retries=2]
  check [prompt="check"]
  start -> build -> check
  check -> build [condition="outcome=fail"]
  check -> exit [condition="outcome=success"]
}`;

/** The sub-pipeline of the tests below: one LLM stage, `lint`. */
const CHECKS = `digraph Checks {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  lint [shape=box, prompt="lint"]
  start -> lint -> exit
}`;

/** A stage event as the engine writes it (the fields the count reads, plus the stamps). */
function stage(
  type: 'stage.started' | 'stage.failed' | 'stage.completed',
  nodeId: string,
  fields: { visit?: number; attempt?: number; branchPath?: string[] } = {},
): PipelineEvent {
  return {
    type,
    nodeId,
    index: 1,
    visit: fields.visit ?? 1,
    attempt: fields.attempt ?? 1,
    seq: 0,
    timestamp: '2026-01-01T00:00:00.000Z',
    runId: 'r',
    ...(fields.branchPath === undefined ? {} : { branchPath: fields.branchPath }),
    ...(type === 'stage.started' ? { label: nodeId, handlerType: 'codergen' } : {}),
    ...(type === 'stage.failed' ? { error: 'x', willRetry: false, durationMs: 1 } : {}),
    ...(type === 'stage.completed' ? { status: 'success', durationMs: 1 } : {}),
  } as PipelineEvent;
}

describe('countSimulationCalls: the calls each node made, from the run events', () => {
  it('counts every finished attempt of a real run, retries and visits included', async () => {
    const backend = createSimulationBackend({ script: { build: ['fail', 'retry'], check: ['fail'] } });
    const { result, events } = await runDot(loop, { backend, clock: createTestClock() });
    expect(result.status).toBe('success');
    // build: 2 retried attempts and a success on visit 1, then visit 2; check: fail, then success.
    const calls = countSimulationCalls(events);
    expect(calls.get('build')).toBe(4);
    expect(calls.get('check')).toBe(2);
    expect(Object.fromEntries(calls)).toMatchObject(Object.fromEntries(backend.calls));
  });

  it('does not count an attempt the run never finished, and counts a retries-exhausted attempt once', () => {
    const events = [
      stage('stage.started', 'build'),
      stage('stage.failed', 'build'),
      stage('stage.completed', 'build'),
      stage('stage.started', 'review'),
    ];
    expect(Object.fromEntries(countSimulationCalls(events))).toEqual({ build: 1 });
  });

  it('keeps parallel branches apart: an attempt ends in its own branch', () => {
    const a = { branchPath: ['fan/a'] };
    const b = { branchPath: ['fan/b'] };
    const events = [
      stage('stage.started', 'lint', a),
      stage('stage.started', 'lint', b),
      stage('stage.completed', 'lint', b),
    ];
    expect(countSimulationCalls(events).get('lint')).toBe(1);
  });

  it('with until, counts up to the stage.completed of that node and visit (a fork point)', async () => {
    const backend = createSimulationBackend({ script: { check: ['fail'] } });
    const { events } = await runDot(loop, { backend });
    expect(countSimulationCalls(events, { until: { node: 'check', visit: 1 } }).get('build')).toBe(1);
    expect(countSimulationCalls(events, { until: { node: 'check', visit: 1 } }).get('check')).toBe(1);
    expect(countSimulationCalls(events, { until: { node: 'build', visit: 2 } }).get('build')).toBe(2);
    expect(countSimulationCalls(events, { until: { node: 'build' } }).get('check')).toBe(1);
  });
});

describe('readSimulationCalls: a run store and its sub-pipeline runs', () => {
  it('adds the calls of the sub-pipeline runs kept in the stages (keys are the child node ids)', async () => {
    const { dir, graph } = pipelines({
      'main.dot': `digraph Parent {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        checks [type="subgraph", graph_ref="checks.dot"]
        again [shape=box, prompt="again"]
        start -> checks -> again
        again -> checks [condition="outcome=fail"]
        again -> exit [condition="outcome=success"]
      }`,
      'checks.dot': CHECKS,
    });
    const backend = createSimulationBackend({ script: { again: ['fail'] } });
    const { result, logsRoot } = await runDot(graph, {
      workdir: dir,
      backend,
      registry: createDefaultRegistry({ backend }),
    });
    expect(result.status).toBe('success');
    const store = createFileRunStore({ logsRoot, createDirectory: false });
    try {
      const calls = await readSimulationCalls({ store });
      // lint ran once in each of the two child runs (the first archived under checks/visits/1/).
      expect(calls.get('lint')).toBe(2);
      expect(calls.get('again')).toBe(2);
      expect(calls.get('checks')).toBe(2);
    } finally {
      await store.close();
    }
  });
});

describe('calls: a backend and a dry-run tool handler continue after the calls already made', () => {
  it('the backend takes the step after the given calls', async () => {
    const backend = createSimulationBackend({
      script: { build: ['fail', 'fail', 'success'] },
      calls: new Map([['build', 2]]),
    });
    const { result, events } = await runDot(loop, { backend });
    expect(result.status).toBe('success');
    expect(events.some((event) => event.type === 'stage.failed')).toBe(false);
    expect(backend.calls.get('build')).toBe(3);
  });

  it('a dry-run tool node takes the step after the given calls', async () => {
    const source = `digraph T {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      probe [shape=parallelogram, tool_command="./probe.sh"]
      start -> probe -> exit
    }`;
    const script = { probe: [{ stdout: 'first' }, { stdout: 'second' }] };
    const resumed = createDefaultRegistry({ dryRun: true, script, calls: new Map([['probe', 1]]) });
    const { result } = await runDot(source, { registry: resumed });
    expect(result.status).toBe('success');
    expect(result.context.get('tool.output')).toBe('second');
  });
});

describe('readSimulationCalls: forks and loop_restart continuations', () => {
  const restart = `digraph R {
    start [shape=Mdiamond]
    exit [shape=Msquare]
    work [prompt="work"]
    check [prompt="check"]
    start -> work -> check
    check -> work [condition="outcome=fail", loop_restart=true]
    check -> exit [condition="outcome=success"]
  }`;

  it('counts the runs a loop_restart chain spans, from either of its directories', async () => {
    const backend = createSimulationBackend({ script: { check: ['fail'] } });
    const { result, logsRoot } = await runDot(restart, { backend });
    expect(result.status).toBe('success');
    expect(result.logsRoot).toBe(`${logsRoot}-restart-1`);
    const openRun = (root: string) => createFileRunStore({ logsRoot: root, createDirectory: false });
    for (const root of [logsRoot, result.logsRoot]) {
      const store = openRun(root);
      try {
        expect(Object.fromEntries(await readSimulationCalls({ store, openRun }))).toMatchObject({
          work: 2,
          check: 2,
        });
      } finally {
        await store.close();
      }
    }
    const alone = openRun(result.logsRoot);
    try {
      // Without openRun only the continuation's own events count.
      expect((await readSimulationCalls({ store: alone })).get('check')).toBe(1);
    } finally {
      await alone.close();
    }
  });

  it('counts a fork source up to the fork point, its sub-pipeline runs up to that time', async () => {
    const { dir, graph } = pipelines({
      'main.dot': `digraph Parent {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        plan [shape=box, prompt="plan"]
        checks [type="subgraph", graph_ref="checks.dot"]
        start -> plan -> checks -> exit
      }`,
      'checks.dot': CHECKS,
    });
    const backend = createSimulationBackend();
    const { logsRoot } = await runDot(graph, {
      workdir: dir,
      backend,
      registry: createDefaultRegistry({ backend }),
    });
    const store = createFileRunStore({ logsRoot, createDirectory: false });
    try {
      const atPlan = await readSimulationCalls({ store, until: { node: 'plan' } });
      expect(atPlan.get('plan')).toBe(1);
      expect(atPlan.has('lint')).toBe(false);
      const atChecks = await readSimulationCalls({ store, until: { node: 'checks', visit: 1 } });
      expect(atChecks.get('lint')).toBe(1);
      expect((await readSimulationCalls({ store, until: { node: 'nowhere' } })).size).toBe(0);
    } finally {
      await store.close();
    }
  });
});
