import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents, readJson, registryWith, run, tempDir } from '../test/helpers.js';
import { CheckpointCorruptError } from './errors/checkpoint-corrupt-error.js';
import { ResumeError } from './errors/resume-error.js';
import { RunDirectoryInUseError } from './errors/run-directory-in-use-error.js';
import { createFileRunStore } from './file-run-store.js';
import type { Handler } from './handler.js';
import { resumePipeline, runPipeline } from './run-pipeline.js';
import type { Checkpoint, RunManifest } from './run-store.js';
import { createTestGraph } from './test/graph-builder.js';
import { createScriptedHandler, type ScriptStep } from './test/scripted-handler.js';
import { createTestClock } from './test/test-clock.js';

/** A handler that cancels the run when it reaches `stopAt` (for the first time), otherwise behaves like `inner`. */
function interruptingAt(stopAt: string, controller: AbortController, inner: Handler): Handler {
  let stopped = false;
  return {
    execute: ({ node, context, graph, logsRoot, runtime }) => {
      if (node.id === stopAt && !stopped) {
        stopped = true;
        controller.abort(new Error('simulated interruption'));
        return new Promise(() => undefined);
      }
      return inner.execute({ node, context, graph, logsRoot, runtime });
    },
  };
}

const counting: Handler = {
  execute: async ({ node, context }) => ({
    status: 'success',
    contextUpdates: {
      [`context.${node.id}`]: (Number(context.get('context.count') ?? 0) + 1).toString(),
      'context.count': Number(context.get('context.count') ?? 0) + 1,
    },
  }),
};

describe('checkpoint (spec §5.3, §11.7, docs/architecture.md "Checkpoint")', () => {
  it('is saved after each node with current_node, next_node, completed nodes, context, retries and outcomes', async () => {
    const checkpoints: Checkpoint[] = [];
    const graph = createTestGraph({
      nodes: [{ id: 'b', maxRetries: 1 }],
      edges: ['start -> a -> b -> exit'],
    });
    const handler = createScriptedHandler({ script: { b: ['fail', 'success'] } });
    const logsRoot = join(tempDir(), 'run');
    await runPipeline({
      graph,
      registry: registryWith(handler),
      logsRoot,
      clock: createTestClock(),
      onEvent: (event) => {
        if (event.type === 'checkpoint.saved')
          checkpoints.push(readJson<Checkpoint>(join(logsRoot, 'checkpoint.json')));
      },
    });
    expect(checkpoints.map((checkpoint) => [checkpoint.current_node, checkpoint.next_node])).toEqual([
      ['start', 'a'],
      ['a', 'b'],
      ['b', 'exit'],
      ['exit', null],
    ]);
    const afterB = checkpoints[2]!;
    expect(afterB.completed_nodes).toEqual(['start', 'a', 'b']);
    expect(afterB.node_retries).toEqual({});
    expect(afterB.node_outcomes.b).toEqual({ status: 'success' });
    expect(afterB.context).toMatchObject({
      outcome: 'success',
      last_stage: 'b',
      'internal.retry_count.b': 1,
    });
    expect(afterB.state).toBe('running');
    expect(checkpoints[3]!.state).toBe('success');
  });

  it('does not grow with the length of the run', async () => {
    const loopGraph = () =>
      createTestGraph({
        settings: { maxNodeVisits: 100_000, maxSteps: 100_000 },
        edges: [
          'start -> work',
          { from: 'work', to: 'work', condition: 'context.done!=yes' },
          { from: 'work', to: 'exit', condition: 'context.done=yes' },
        ],
      });
    const sizeAfter = async (iterations: number) => {
      let count = 0;
      const handler: Handler = {
        execute: async ({ context }) => {
          count += 1;
          context.appendLog(`iteration ${count}`);
          return { status: 'success', contextUpdates: { done: count >= iterations ? 'yes' : 'no' } };
        },
      };
      const { logsRoot } = await run({ graph: loopGraph(), registry: registryWith(handler) });
      return statSync(join(logsRoot, 'checkpoint.json')).size;
    };
    const small = await sizeAfter(200);
    const large = await sizeAfter(500);
    expect(Math.abs(large - small)).toBeLessThan(16);
  });
});

describe('resumePipeline (spec §5.3, §11.7, docs/architecture.md "Resume")', () => {
  const graph = createTestGraph({ edges: ['start -> a -> b -> c -> exit'] });

  async function interruptedAt(stopAt: string, target = graph, inner: Handler = counting) {
    const logsRoot = join(tempDir(), 'run');
    const controller = new AbortController();
    const first = await runPipeline({
      graph: target,
      registry: registryWith(interruptingAt(stopAt, controller, inner)),
      logsRoot,
      abortSignal: controller.signal,
      clock: createTestClock(),
    });
    expect(first.status).toBe('cancelled');
    return logsRoot;
  }

  it('continues at the checkpoint and produces the same result as an uninterrupted run', async () => {
    const uninterrupted = await runPipeline({
      graph,
      registry: registryWith(counting),
      logsRoot: join(tempDir(), 'u'),
      clock: createTestClock(),
    });
    const logsRoot = await interruptedAt('b');
    const resumed = await resumePipeline({
      graph,
      registry: registryWith(counting),
      logsRoot,
      clock: createTestClock(),
    });
    expect(resumed.status).toBe('success');
    expect(resumed.completedNodes).toEqual(uninterrupted.completedNodes);
    expect(resumed.context.snapshot()).toEqual(uninterrupted.context.snapshot());
  });

  it('keeps event seq strictly increasing across the resume', async () => {
    const logsRoot = await interruptedAt('b');
    await resumePipeline({ graph, registry: registryWith(counting), logsRoot, clock: createTestClock() });
    const seqs = readEvents(logsRoot).map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((left, right) => left - right));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(
      readEvents(logsRoot)
        .filter((event) => event.type === 'pipeline.started')
        .map((event) => (event as { resumed: boolean }).resumed),
    ).toEqual([false, true]);
  });

  it('refuses a checkpoint written for a different graph', async () => {
    const logsRoot = await interruptedAt('b');
    const other = createTestGraph({ edges: ['start -> a -> b -> d -> exit'] });
    const error = await resumePipeline({ graph: other, registry: registryWith(counting), logsRoot }).catch(
      (caught: unknown) => caught,
    );
    expect(ResumeError.isInstance(error)).toBe(true);
    expect((error as ResumeError).reason).toBe('graph_mismatch');
    expect((error as Error).message).toContain('different graph');
  });

  it('refuses a directory without a checkpoint', async () => {
    const error = await resumePipeline({
      graph,
      registry: registryWith(counting),
      logsRoot: tempDir(),
    }).catch((caught: unknown) => caught);
    expect((error as ResumeError).reason).toBe('no_checkpoint');
  });

  it('refuses a run that already succeeded unless `from` is given', async () => {
    const logsRoot = join(tempDir(), 'done');
    await runPipeline({ graph, registry: registryWith(counting), logsRoot, clock: createTestClock() });
    const error = await resumePipeline({ graph, registry: registryWith(counting), logsRoot }).catch(
      (caught: unknown) => caught,
    );
    expect((error as ResumeError).reason).toBe('already_completed');
    const handler = createScriptedHandler();
    const again = await resumePipeline({
      graph,
      registry: registryWith(handler),
      logsRoot,
      from: 'c',
      clock: createTestClock(),
    });
    expect(again.status).toBe('success');
    expect(handler.nodeIds()).toEqual(['c']);
  });

  it('keeps a goal gate across a resume', async () => {
    const gated = createTestGraph({
      nodes: [{ id: 'gate', goalGate: true, retryTarget: 'gate' }],
      edges: [
        'start -> gate',
        { from: 'gate', to: 'after', condition: 'outcome=fail' },
        { from: 'gate', to: 'after', condition: 'outcome=success' },
        'after -> exit',
      ],
    });
    const script: Record<string, ScriptStep[]> = { gate: ['fail', 'success'] };
    const handler = createScriptedHandler({ script });
    const logsRoot = await interruptedAt('after', gated, handler);
    const resumed = await resumePipeline({
      graph: gated,
      registry: registryWith(handler),
      logsRoot,
      clock: createTestClock(),
    });
    expect(resumed.status).toBe('success');
    expect(resumed.completedNodes).toEqual(['start', 'gate', 'after', 'gate', 'after', 'exit']);
  });

  it('restores visit counters, so limits hold across a resume', async () => {
    const looping = createTestGraph({
      nodes: [{ id: 'work', maxVisits: 3 }],
      edges: ['start -> work -> pause -> work', { from: 'work', to: 'exit', condition: 'outcome=never' }],
    });
    const logsRoot = await interruptedAt('pause', looping, createScriptedHandler());
    const resumed = await resumePipeline({
      graph: looping,
      registry: registryWith(createScriptedHandler()),
      logsRoot,
      clock: createTestClock(),
    });
    expect(resumed.failureReason).toBe('node "work" reached its visit limit (max_visits=3)');
    expect(resumed.completedNodes.filter((id) => id === 'work')).toHaveLength(3);
  });

  it('re-runs the failed node when resuming a failed run', async () => {
    const logsRoot = join(tempDir(), 'failed');
    const failing = createScriptedHandler({
      script: { b: [{ status: 'fail', failureReason: 'flaky infra' }] },
    });
    const first = await runPipeline({
      graph,
      registry: registryWith(failing),
      logsRoot,
      clock: createTestClock(),
    });
    expect(first.status).toBe('fail');
    const fixed = createScriptedHandler();
    const resumed = await resumePipeline({
      graph,
      registry: registryWith(fixed),
      logsRoot,
      clock: createTestClock(),
    });
    expect(resumed.status).toBe('success');
    expect(fixed.nodeIds()).toEqual(['b', 'c']);
    expect(resumed.completedNodes).toEqual(['start', 'a', 'b', 'b', 'c', 'exit']);
  });

  it('resumes a run whose node id equals a secret value (`API_KEY=deploy`, node `deploy`): ids are not masked', async () => {
    const secretGraph = createTestGraph({ edges: ['start -> deploy -> exit'] });
    const logsRoot = join(tempDir(), 'secret-id');
    const failing = createScriptedHandler({
      script: { deploy: [{ status: 'fail', failureReason: 'login as deploy refused' }] },
    });
    const first = await runPipeline({
      graph: secretGraph,
      registry: registryWith(failing),
      logsRoot,
      secretValues: ['deploy'],
    });
    expect(first.status).toBe('fail');
    const checkpoint = readJson<Checkpoint>(join(logsRoot, 'checkpoint.json'));
    expect([checkpoint.current_node, checkpoint.next_node, checkpoint.completed_nodes]).toEqual([
      'deploy',
      'deploy',
      ['start', 'deploy'],
    ]);
    // The data is still masked.
    expect(checkpoint.node_outcomes.deploy?.failureReason).toBe('login as [REDACTED] refused');
    expect(readJson<RunManifest>(join(logsRoot, 'manifest.json')).node_ids).toContain('deploy');
    // Events and status.json keep the node id too (inspect, render --run and the server look stages up by it).
    const failed = readEvents(logsRoot).find(
      (event) => event.type === 'stage.completed' && event.status === 'fail',
    );
    expect(failed).toMatchObject({ nodeId: 'deploy', failureReason: 'login as [REDACTED] refused' });
    expect(readJson(join(logsRoot, 'deploy', 'status.json'))).toMatchObject({
      outcome: 'fail',
      failure_reason: 'login as [REDACTED] refused',
    });
    const resumed = await resumePipeline({
      graph: secretGraph,
      registry: registryWith(createScriptedHandler()),
      logsRoot,
      secretValues: ['deploy'],
    });
    expect(resumed.status).toBe('success');
    expect(resumed.completedNodes).toEqual(['start', 'deploy', 'deploy', 'exit']);
  });

  it('continues at `from` when given (CLI --from)', async () => {
    const logsRoot = await interruptedAt('b');
    const handler = createScriptedHandler();
    await resumePipeline({
      graph,
      registry: registryWith(handler),
      logsRoot,
      from: 'c',
      clock: createTestClock(),
    });
    expect(handler.nodeIds()).toEqual(['c']);
  });

  it('degrades full fidelity to summary:high for the first stage after a resume only', async () => {
    const full = createTestGraph({
      settings: { defaultFidelity: 'full' },
      edges: ['start -> a -> b -> c -> exit'],
    });
    const modes: string[] = [];
    const recorder: Handler = {
      execute: async ({ node, runtime }) => {
        modes.push(
          `${node.id}:${runtime.fidelity.mode}:${runtime.fidelity.preamble === '' ? 'none' : 'preamble'}`,
        );
        return { status: 'success' };
      },
    };
    const logsRoot = await interruptedAt('b', full, recorder);
    await resumePipeline({
      graph: full,
      registry: registryWith(recorder),
      logsRoot,
      clock: createTestClock(),
    });
    expect(modes).toEqual(['a:full:none', 'b:summary:high:preamble', 'c:full:none']);
  });

  it('resumes from the checkpoint alone: no events.jsonl and no status.json are read', async () => {
    const ids = Array.from({ length: 150 }, (_, index) => `n${index}`);
    const long = createTestGraph({
      nodes: [{ id: 'n3', goalGate: true, retryTarget: 'n3' }],
      edges: [['start', ...ids, 'exit'].join(' -> ')],
    });
    const uninterrupted = await runPipeline({
      graph: long,
      registry: registryWith(counting),
      logsRoot: join(tempDir(), 'u'),
      clock: createTestClock(),
    });
    const logsRoot = await interruptedAt('n140', long);
    const checkpoint = readJson<Checkpoint>(join(logsRoot, 'checkpoint.json'));
    expect(checkpoint.completed_nodes).toHaveLength(100);
    expect(checkpoint.visited_nodes).toBe('0-140');
    expect(checkpoint.node_outcomes.n3).toBeDefined();
    rmSync(join(logsRoot, 'events.jsonl'));
    for (const id of ids) rmSync(join(logsRoot, id), { recursive: true, force: true });
    const resumed = await resumePipeline({
      graph: long,
      registry: registryWith(counting),
      logsRoot,
      clock: createTestClock(),
    });
    expect(resumed.status).toBe('success');
    // The window of 100 executions before the interruption, then the rest.
    expect(resumed.completedNodes).toEqual(uninterrupted.completedNodes.slice(-111));
    expect(resumed.nodeOutcomes.n3).toEqual(uninterrupted.nodeOutcomes.n3);
    expect(resumed.context.snapshot()).toEqual(uninterrupted.context.snapshot());
  });

  it('keeps the visit counters of nodes far behind the checkpoint window (loop guards)', async () => {
    const ids = Array.from({ length: 120 }, (_, index) => `n${index}`);
    const lapGraph = createTestGraph({
      nodes: [{ id: 'n5', maxVisits: 1 }],
      edges: [
        ['start', ...ids].join(' -> '),
        { from: 'n119', to: 'n0', condition: 'context.laps!=2' },
        { from: 'n119', to: 'exit', condition: 'context.laps=2' },
      ],
    });
    const laps: Handler = {
      execute: async ({ node, context }) => ({
        status: 'success',
        ...(node.id === 'n119'
          ? { contextUpdates: { 'context.laps': Number(context.get('context.laps') ?? 0) + 1 } }
          : {}),
      }),
    };
    const uninterrupted = await runPipeline({
      graph: lapGraph,
      registry: registryWith(laps),
      logsRoot: join(tempDir(), 'u'),
      clock: createTestClock(),
    });
    expect(uninterrupted.failureReason).toBe('node "n5" reached its visit limit (max_visits=1)');
    const logsRoot = await interruptedAt('n115', lapGraph, laps);
    const resumed = await resumePipeline({ graph: lapGraph, registry: registryWith(laps), logsRoot });
    expect(resumed.status).toBe('fail');
    expect(resumed.failureReason).toBe(uninterrupted.failureReason);
  });

  it('restarts from the start a run interrupted before its first checkpoint', async () => {
    const logsRoot = await interruptedAt('b');
    const manifest = readJson<RunManifest>(join(logsRoot, 'manifest.json'));
    // As if the process died right after writing the manifest.
    for (const name of ['checkpoint.json', 'checkpoints.jsonl', 'events.jsonl', 'start', 'a', 'b'])
      rmSync(join(logsRoot, name), { recursive: true, force: true });
    writeFileSync(
      join(logsRoot, 'manifest.json'),
      JSON.stringify({ ...manifest, initial_context: { 'context.seed': 'kept' } }),
    );
    const resumed = await resumePipeline({ graph, registry: registryWith(counting), logsRoot });
    expect(resumed.status).toBe('success');
    expect(resumed.completedNodes).toEqual(['start', 'a', 'b', 'c', 'exit']);
    expect(resumed.context.get('context.seed')).toBe('kept');
    expect(readEvents(logsRoot)[0]).toMatchObject({ type: 'pipeline.started', resumed: true });
  });

  it('keeps every checkpoint as history, each of bounded size', async () => {
    const logsRoot = await interruptedAt('c');
    await resumePipeline({ graph, registry: registryWith(counting), logsRoot });
    const history = await createFileRunStore({ logsRoot }).readCheckpointHistory();
    expect(history.map((checkpoint) => [checkpoint.current_node, checkpoint.next_node])).toEqual([
      ['', 'start'],
      ['start', 'a'],
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'exit'],
      ['exit', null],
    ]);
    expect(history.at(-1)).toEqual(readJson<Checkpoint>(join(logsRoot, 'checkpoint.json')));
  });

  for (const [name, text, message] of [
    ['an old version', '{"version":1}', 'field "version": unsupported checkpoint version 1 (expected 2)'],
    ['a missing field', '{"version":2}', 'field "timestamp"'],
    ['null outcomes', null, 'field "node_outcomes"'],
    ['a string context', 'context', 'field "context"'],
  ] as const) {
    it(`refuses a checkpoint with ${name}, naming the field, and leaves the files unchanged`, async () => {
      const logsRoot = await interruptedAt('b');
      const path = join(logsRoot, 'checkpoint.json');
      const valid = readJson<Record<string, unknown>>(path);
      const written =
        text === null
          ? JSON.stringify({ ...valid, node_outcomes: null })
          : text === 'context'
            ? JSON.stringify({ ...valid, context: 'xyz' })
            : text;
      writeFileSync(path, written);
      const before = readFileSync(join(logsRoot, 'events.jsonl'), 'utf8');
      const error = await resumePipeline({ graph, registry: registryWith(counting), logsRoot }).catch(
        (caught: unknown) => caught as Error,
      );
      expect(CheckpointCorruptError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(message);
      expect((error as Error).message).toContain(path);
      expect(readFileSync(path, 'utf8')).toBe(written);
      expect(readFileSync(join(logsRoot, 'events.jsonl'), 'utf8')).toBe(before);
    });
  }

  it('runPipeline refuses a run directory that already holds a run', async () => {
    const logsRoot = await interruptedAt('b');
    const error = await runPipeline({ graph, registry: registryWith(counting), logsRoot }).catch(
      (caught: unknown) => caught,
    );
    expect(RunDirectoryInUseError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('resumePipeline');
  });

  it('reports a corrupt checkpoint clearly', async () => {
    const logsRoot = await interruptedAt('b');
    writeFileSync(join(logsRoot, 'checkpoint.json'), '{"version": 1, "trunc');
    await expect(resumePipeline({ graph, registry: registryWith(counting), logsRoot })).rejects.toThrow(
      /checkpoint.json: the file is not valid JSON/,
    );
  });
});
