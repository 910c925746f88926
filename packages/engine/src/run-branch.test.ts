import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registryWith, run, tempDir } from '../test/helpers.js';
import type { Handler } from './handler.js';
import type { BranchResult, ChildRunStatus } from './handler-runtime.js';
import type { JsonValue } from './json-value.js';
import type { RunStore } from './run-store.js';
import { createTestGraph } from './test/graph-builder.js';
import { createMemoryRunStore } from './test/memory-run-store.js';
import { createScriptedHandler } from './test/scripted-handler.js';
import { createScriptedInterviewer } from './test/scripted-interviewer.js';

/** A minimal parallel handler in the shape the built-in one takes: branches on clones, results in the context. */
const parallel: Handler = {
  async execute({ node, context, graph, runtime }) {
    const results: BranchResult[] = await Promise.all(
      graph.outgoing(node.id).map((edge) =>
        runtime.runBranch({
          startNodeId: edge.to,
          context: context.clone(),
          branchId: edge.to,
          stopBefore: (candidate) => graph.handlerType(candidate) === 'parallel.fan_in',
        }),
      ),
    );
    const summary: JsonValue = results.map((result, index) => ({
      branch: graph.outgoing(node.id)[index]!.to,
      status: result.status,
      stopped_at: result.stoppedAt ?? null,
      completed: result.completedNodes,
      context_updates: result.contextUpdates,
    }));
    const failed = results.filter((result) => result.status !== 'success').length;
    return {
      status: failed === 0 ? 'success' : failed === results.length ? 'fail' : 'partial_success',
      contextUpdates: { 'parallel.results': summary },
      ...(results[0]?.stoppedAt === undefined ? {} : { suggestedNextIds: [results[0].stoppedAt] }),
    };
  },
};

const fanGraph = () =>
  createTestGraph({
    nodes: [
      { id: 'fan', shape: 'component' },
      { id: 'join', shape: 'tripleoctagon' },
    ],
    edges: ['start -> fan', 'fan -> a1 -> a2 -> join', 'fan -> b1 -> join', 'join -> exit'],
  });

/** Runs `start -> boss -> exit` where `boss` is a manager node run by `manager`, every other node by `handler`, with
 * every run directory (the parent's and its children's) in `store`. */
function runManagerOn(store: RunStore, handler: Handler, manager: Handler) {
  return run({
    graph: createTestGraph({ nodes: [{ id: 'boss', shape: 'house' }], edges: ['start -> boss -> exit'] }),
    logsRoot: '/memory/parent',
    registry: registryWith(handler, { 'stack.manager_loop': manager }),
    createRunStore: () => store,
  });
}

describe('runtime.runBranch (docs/architecture.md "Parallel fan-out")', () => {
  it('runs each branch up to the fan-in and the engine continues at the join', async () => {
    const handler = createScriptedHandler({
      script: { a2: [{ status: 'success', contextUpdates: { 'context.a': 'done' } }] },
    });
    const { result, logsRoot } = await run({
      graph: fanGraph(),
      registry: registryWith(handler, { parallel }),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'fan', 'join', 'exit']);
    const results = result.context.get('parallel.results') as {
      branch: string;
      stopped_at: string;
      completed: string[];
      context_updates: Record<string, JsonValue>;
    }[];
    expect(results.map((item) => [item.branch, item.stopped_at, item.completed])).toEqual([
      ['a1', 'join', ['a1', 'a2']],
      ['b1', 'join', ['b1']],
    ]);
    expect(results[0]!.context_updates['context.a']).toBe('done');
    expect(result.context.has('context.a')).toBe(false);
    expect(existsSync(join(logsRoot, 'fan', 'branches', 'a1', 'a2', 'status.json'))).toBe(true);
    expect(readdirSync(join(logsRoot, 'fan', 'branches')).sort()).toEqual(['a1', 'b1']);
  });

  it('marks branch events with the branch path', async () => {
    const { events } = await run({
      graph: fanGraph(),
      registry: registryWith(createScriptedHandler(), { parallel }),
    });
    const branchStages = events
      .filter((event) => event.type === 'stage.completed' && event.branchPath !== undefined)
      .map((event) => `${event.branchPath!.join('/')}:${(event as { nodeId: string }).nodeId}`);
    expect(branchStages.sort()).toEqual(['a1:a1', 'a1:a2', 'b1:b1']);
  });

  it('reports a failing branch with its reason, and the others still run', async () => {
    const handler = createScriptedHandler({ script: { b1: [{ status: 'fail', failureReason: 'b broke' }] } });
    const { result } = await run({ graph: fanGraph(), registry: registryWith(handler, { parallel }) });
    expect(result.nodeOutcomes.fan?.status).toBe('partial_success');
    const results = result.context.get('parallel.results') as { branch: string; status: string }[];
    expect(results.map((item) => item.status)).toEqual(['success', 'fail']);
  });

  it('stops a branch before the exit node without executing it', async () => {
    const graph = createTestGraph({
      nodes: [{ id: 'fan', shape: 'component' }],
      edges: ['start -> fan', 'fan -> a -> exit', 'fan -> b -> exit'],
    });
    const { result } = await run({ graph, registry: registryWith(createScriptedHandler(), { parallel }) });
    expect(result.completedNodes).toEqual(['start', 'fan', 'exit']);
  });

  it('reaches branches with the interviewer and the event sink', async () => {
    const asker: Handler = {
      execute: async ({ node, runtime }) => {
        const answer = await runtime.interviewer.ask({
          id: node.id,
          text: 'ok?',
          type: 'yes_no',
          options: [],
          stage: node.id,
        });
        return { status: 'success', notes: answer.value };
      },
    };
    const interviewer = createScriptedInterviewer(['yes', 'no', 'yes', 'yes']);
    const { events } = await run({
      graph: fanGraph(),
      registry: registryWith(asker, { parallel }),
      interviewer,
    });
    expect(interviewer.questions.map((question) => question.stage).sort()).toEqual([
      'a1',
      'a2',
      'b1',
      'join',
    ]);
    const interviews = events.filter((event) => event.type === 'interview.completed');
    expect(interviews.map((event) => event.branchPath?.join('/') ?? '-').sort()).toEqual([
      '-',
      'a1',
      'a1',
      'b1',
    ]);
  });
});

describe('runtime.runChild (spec §4.11)', () => {
  it('runs a child pipeline in its own run directory and lets the parent observe it', async () => {
    const childGraph = createTestGraph({ id: 'child', edges: ['start -> c1 -> c2 -> exit'] });
    const observed: ChildRunStatus[] = [];
    const parentRoot = join(tempDir(), 'run');
    const childRoot = join(parentRoot, 'boss', 'child-run');
    const manager: Handler = {
      async execute({ runtime }) {
        const child = runtime.runChild({
          graph: childGraph,
          name: 'child-run',
          context: { 'context.task': 'x' },
        });
        expect(child.logsRoot).toBe(childRoot);
        observed.push(child.status());
        const result = await child.result;
        observed.push(child.status());
        return {
          status: result.status === 'success' ? 'success' : 'fail',
          contextUpdates: { 'stack.child.status': child.status().state },
        };
      },
    };
    const childHandler = createScriptedHandler();
    const graph = createTestGraph({
      nodes: [{ id: 'boss', shape: 'house' }],
      edges: ['start -> boss -> exit'],
    });
    const { result, events } = await run({
      graph,
      logsRoot: parentRoot,
      registry: registryWith(childHandler, { 'stack.manager_loop': manager }),
      sourcePath: '/tmp/parent.dot',
      context: { 'context.parent_only': 1 },
    });
    const { readJson } = await import('../test/helpers.js');
    const childManifest = readJson<Record<string, unknown>>(join(childRoot, 'manifest.json'));
    expect(childManifest.graph_name).toBe('child');
    expect(childManifest.source_path).toBeUndefined();
    expect(childHandler.calls[0]!.context['context.parent_only']).toBeUndefined();
    expect(result.status).toBe('success');
    expect(observed[0]!.state).toBe('running');
    expect(observed[1]).toMatchObject({ state: 'completed', completedNodes: ['start', 'c1', 'c2', 'exit'] });
    expect(childHandler.calls[0]!.context['context.task']).toBe('x');
    expect(existsSync(join(childRoot, 'checkpoint.json'))).toBe(true);
    const childEvents = events.filter((event) => event.branchPath?.[0] === 'child:boss');
    expect(childEvents.some((event) => event.type === 'stage.completed')).toBe(true);
    expect(result.context.get('stack.child.status')).toBe('completed');
  });

  it('shows the current node while the child runs', async () => {
    const childGraph = createTestGraph({ id: 'child', edges: ['start -> slow -> exit'] });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: Handler = {
      execute: async () => {
        await gate;
        return { status: 'success' };
      },
    };
    let seen: ChildRunStatus | undefined;
    const manager: Handler = {
      async execute({ runtime }) {
        const child = runtime.runChild({ graph: childGraph, name: 'c' });
        while (child.status().currentNodeId !== 'slow') await new Promise((resolve) => setImmediate(resolve));
        seen = child.status();
        release();
        await child.result;
        return { status: 'success' };
      },
    };
    const graph = createTestGraph({
      nodes: [{ id: 'boss', shape: 'house' }],
      edges: ['start -> boss -> exit'],
    });
    await run({ graph, registry: registryWith(slow, { 'stack.manager_loop': manager }) });
    expect(seen).toMatchObject({ state: 'running', currentNodeId: 'slow', completedNodes: ['start'] });
    expect(seen?.currentStageDir?.endsWith('/slow')).toBe(true);
    expect(seen?.currentStagePath).toBe('slow');
  });

  it('keeps a child run in store.child() of an in-memory run, apart from the parent', async () => {
    const store = createMemoryRunStore('/memory/parent');
    const childGraph = createTestGraph({ id: 'child', edges: ['start -> c1 -> exit'] });
    const writer: Handler = {
      async execute({ node, runtime }) {
        await runtime.stage.writeFile('out.txt', `wrote ${node.id}`);
        return { status: 'success' };
      },
    };
    const manager: Handler = {
      async execute({ runtime }) {
        const child = runtime.runChild({ graph: childGraph, name: 'child' });
        const result = await child.result;
        const written = await child.store.readStageFile('c1', 'out.txt');
        expect(Buffer.from(written ?? []).toString()).toBe('wrote c1');
        return { status: result.status === 'success' ? 'success' : 'fail' };
      },
    };
    const { result } = await runManagerOn(store, writer, manager);
    expect(result.failureReason).toBeUndefined();
    expect(result.status).toBe('success');
    const child = store.child('boss/child');
    expect(child.manifest?.graph_name).toBe('child');
    expect(child.checkpoints.at(-1)?.state).toBe('success');
    expect(store.manifest?.graph_name).not.toBe('child');
    expect(await store.listStages()).toEqual(['boss', 'exit', 'start']);
  });
  it("names a child run of a store that is not a directory by the store's own location", async () => {
    const store = createMemoryRunStore('memory://runs/parent');
    const childGraph = createTestGraph({ id: 'child', edges: ['start -> broken -> exit'] });
    const failing: Handler = {
      execute: async () => ({ status: 'fail', failureReason: 'broken on purpose' }),
    };
    let handle: { runId: string; logsRoot: string } | undefined;
    const manager: Handler = {
      async execute({ runtime }) {
        const child = runtime.runChild({ graph: childGraph, name: 'child' });
        handle = { runId: child.runId, logsRoot: child.logsRoot };
        const result = await child.result;
        return { status: 'fail', failureReason: `child ${result.logsRoot} failed: ${result.failureReason}` };
      },
    };
    const { result, events } = await runManagerOn(store, failing, manager);
    expect(handle).toEqual({ runId: 'child', logsRoot: 'memory://runs/parent/boss/child' });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toBe(
      'node "boss" failed: child memory://runs/parent/boss/child failed: node "broken" failed: broken on purpose',
    );
    const started = events.filter((event) => event.type === 'pipeline.started');
    expect(started.map((event) => (event.type === 'pipeline.started' ? event.logsRoot : ''))).toEqual([
      resolve('/memory/parent'),
      'memory://runs/parent/boss/child',
    ]);
    expect(store.child('boss/child').events[0]).toMatchObject({
      type: 'pipeline.started',
      runId: 'child',
      logsRoot: 'memory://runs/parent/boss/child',
    });
  });

  it("keeps a child's loop_restart continuation in the store's child, next to the child", async () => {
    const store = createMemoryRunStore('memory://runs/parent');
    let rounds = 0;
    const counter: Handler = {
      execute: async ({ node }) => {
        if (node.id === 'work') rounds += 1;
        return { status: 'success', contextUpdates: { 'context.round': rounds } };
      },
    };
    const childGraph = createTestGraph({
      id: 'child',
      edges: [
        'start -> work',
        { from: 'work', to: 'work', condition: 'context.round=1', loopRestart: true },
        { from: 'work', to: 'exit', condition: 'context.round=2' },
      ],
    });
    let childResult: { status: string; logsRoot: string } | undefined;
    const manager: Handler = {
      async execute({ runtime }) {
        const result = await runtime.runChild({ graph: childGraph, name: 'child' }).result;
        childResult = { status: result.status, logsRoot: result.logsRoot };
        return { status: 'success' };
      },
    };
    const { result } = await runManagerOn(store, counter, manager);
    expect(result.status).toBe('success');
    expect(childResult).toEqual({ status: 'success', logsRoot: 'memory://runs/parent/boss/child-restart-1' });
    expect(store.manifest?.graph_name).not.toBe('child');
    expect(store.child('boss/child').manifest?.restarted_to).toBe(
      'memory://runs/parent/boss/child-restart-1',
    );
    expect(store.child('boss/child-restart-1').manifest).toMatchObject({
      graph_name: 'child',
      restarted_from: 'memory://runs/parent/boss/child',
    });
    expect(store.child('boss/child-restart-1').checkpoints.at(-1)?.state).toBe('success');
  });
});

/**
 * `start -> work -> check`, whose `check` takes a loop_restart edge back to `work` once; the restarted run fails at
 * `check` once, then passes (on resume). `runs` counts each node's executions.
 */
function restartThenFlakyCheck() {
  const runs = { work: 0, check: 0 };
  const handler: Handler = {
    execute: async ({ node }) => {
      if (node.id === 'work') runs.work += 1;
      if (node.id === 'check') {
        runs.check += 1;
        if (runs.check === 2) return { status: 'fail', failureReason: 'flaky' };
      }
      return { status: 'success', contextUpdates: { 'context.round': runs.work } };
    },
  };
  const graph = createTestGraph({
    edges: [
      'start -> work -> check',
      { from: 'check', to: 'work', condition: 'context.round=1', loopRestart: true },
      { from: 'check', to: 'exit', condition: 'outcome=success && context.round=2' },
    ],
  });
  return { graph, handler, runs };
}

describe('loop_restart (spec §2.7)', () => {
  it('continues in a new sibling run directory and records it in the old manifest', async () => {
    let rounds = 0;
    const handler: Handler = {
      execute: async ({ node }) => {
        if (node.id === 'work') rounds += 1;
        return { status: 'success', contextUpdates: { 'context.round': rounds } };
      },
    };
    const graph = createTestGraph({
      edges: [
        'start -> work',
        { from: 'work', to: 'work', condition: 'context.round=1', loopRestart: true },
        { from: 'work', to: 'exit', condition: 'context.round=2' },
      ],
    });
    const { result, logsRoot } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('success');
    expect(result.logsRoot).toBe(`${logsRoot}-restart-1`);
    const { readJson } = await import('../test/helpers.js');
    expect(readJson<{ restarted_to: string }>(join(logsRoot, 'manifest.json')).restarted_to).toBe(
      result.logsRoot,
    );
    expect(readJson<{ restarted_from: string }>(join(result.logsRoot, 'manifest.json')).restarted_from).toBe(
      logsRoot,
    );
    expect(result.completedNodes).toEqual(['work', 'exit']);
  });

  it('ends the old directory as restarted, pointing at the new one; resume follows the pointer (issue 19 bug 2)', async () => {
    const { graph, handler, runs } = restartThenFlakyCheck();
    const { result, logsRoot } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('fail');
    const { readJson } = await import('../test/helpers.js');
    const old = readJson<{ state: string; restarted_to: string; next_node: string | null }>(
      join(logsRoot, 'checkpoint.json'),
    );
    expect(old).toMatchObject({ state: 'restarted', restarted_to: result.logsRoot, next_node: null });
    const { resumePipeline } = await import('./run-pipeline.js');
    const { createTestClock } = await import('./test/test-clock.js');
    const resumed = await resumePipeline({
      graph,
      registry: registryWith(handler),
      logsRoot,
      clock: createTestClock(),
    });
    expect(resumed.status).toBe('success');
    expect(resumed.logsRoot).toBe(result.logsRoot);
    // Resumed at the failed `check` of the restarted run: `work` ran twice in all (once per run directory), not again.
    expect(runs).toEqual({ work: 2, check: 3 });
  });

  it.each([
    ["as the engine records it (the store's name)", undefined],
    ["as a worker recorded it before (the first machine's own directory)", '/machine-a/runs/job-restart-1'],
  ])(
    "on another store, names the continuation by the store's name; resume on another machine follows it %s",
    async (_, recorded) => {
      // A shared store (as the PostgreSQL one) keeps runs by id; each machine calls them `<its run root>/<run id>`.
      const runs = new Map<string, ReturnType<typeof createMemoryRunStore>>();
      const storesOf =
        (root: string) =>
        (logsRoot: string): RunStore => {
          if (dirname(logsRoot) !== root) throw new Error(`${logsRoot} is not under the run root ${root}`);
          const id = basename(logsRoot);
          const store = runs.get(id) ?? createMemoryRunStore(`memory://runs#${id}`);
          runs.set(id, store);
          return store;
        };
      const { graph, handler, runs: counts } = restartThenFlakyCheck();
      const { result, events } = await run({
        graph,
        registry: registryWith(handler),
        logsRoot: '/machine-a/runs/job',
        createRunStore: storesOf('/machine-a/runs'),
      });
      expect(result.status).toBe('fail');
      const first = runs.get('job')!;
      const continued = runs.get('job-restart-1')!;
      expect(first.checkpoints.at(-1)).toMatchObject({
        state: 'restarted',
        restarted_to: 'memory://runs#job-restart-1',
        next_node: null,
      });
      expect(first.manifest?.restarted_to).toBe('memory://runs#job-restart-1');
      expect(continued.manifest?.restarted_from).toBe('memory://runs#job');
      expect(events.find((event) => event.type === 'pipeline.restarted')).toMatchObject({
        newLogsRoot: 'memory://runs#job-restart-1',
      });
      if (recorded !== undefined) {
        const last = first.checkpoints.at(-1)!;
        await first.writeCheckpoint({ ...last, restarted_to: recorded });
      }
      const { resumePipeline } = await import('./run-pipeline.js');
      const { createTestClock } = await import('./test/test-clock.js');
      const resumed = await resumePipeline({
        graph,
        registry: registryWith(handler),
        logsRoot: '/machine-b/runs/job',
        createRunStore: storesOf('/machine-b/runs'),
        clock: createTestClock(),
      });
      expect(resumed.status).toBe('success');
      expect(resumed.logsRoot).toBe('/machine-b/runs/job-restart-1');
      expect(continued.checkpoints.at(-1)?.state).toBe('success');
      expect([...runs.keys()].sort()).toEqual(['job', 'job-restart-1']);
      expect(counts).toEqual({ work: 2, check: 3 });
    },
  );

  it('stops a loop_restart edge that is always taken at max_steps, counted across the restarts', async () => {
    // The shape of danshapiro/kilroy semport.dot in a simulated run: the restart edge is taken every round.
    const graph = createTestGraph({
      settings: { maxSteps: 12 },
      edges: ['start -> work', { from: 'work', to: 'work', loopRestart: true }],
    });
    const handler: Handler = { execute: async () => ({ status: 'success' }) };
    const { result, logsRoot } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toContain('max_steps (12)');
    const restarts = readdirSync(join(logsRoot, '..')).filter((name) => name.includes('-restart-'));
    expect(restarts).toHaveLength(11);
  });
});
