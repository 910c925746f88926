import { join } from 'node:path';
import type { RunStore } from '@attractor/engine';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postgresAvailableForTests,
  prepareSimulated,
  startPostgresServer,
  tempDir,
} from '../test/worker-fixtures.js';
import {
  connectRunQueue,
  type RunQueue,
  type StartWorkerOptions,
  startWorker,
  type WorkerEvent,
  type WorkerRunCatalog,
} from './index.js';

const available = postgresAvailableForTests('@attractor/worker tests on the PostgreSQL run store');

describe.skipIf(!available)('a worker on the PostgreSQL run store (issue 18)', () => {
  let server: Awaited<ReturnType<typeof startPostgresServer>>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let queue: RunQueue;
  let catalog: ReturnType<typeof createPostgresRunCatalog>;
  /** A worker on the test's store and queue. */
  const work = (overrides: Partial<StartWorkerOptions> = {}) =>
    startWorker({
      catalog,
      queueUrl: server.url,
      workdirRoot: join(dir.path, 'work'),
      prepare: prepareSimulated,
      pollingIntervalSeconds: 0.5,
      ...overrides,
    });
  /**
   * A worker (retryLimit 2, no retry delay) on the test's catalog, but whose `readManifest` of run `runId` fails 3
   * times (the store unreachable), then works; with the worker's events.
   */
  const flakyWorker = async (runId: string) => {
    let faults = 3;
    const flaky: WorkerRunCatalog = {
      location: catalog.location,
      open(id) {
        const store = catalog.open(id);
        return new Proxy(store, {
          get(target, property, receiver) {
            if (property === 'readManifest' && id === runId && faults > 0) {
              return async () => {
                faults--;
                throw new Error('the run store is unreachable (test fault)');
              };
            }
            const value: unknown = Reflect.get(target, property, receiver);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }) as RunStore;
      },
    };
    const seen: WorkerEvent[] = [];
    const worker = await work({
      catalog: flaky,
      retryLimit: 2,
      retryDelaySeconds: 0,
      onEvent: (event) => seen.push(event),
    });
    return { worker, seen, faults: () => faults };
  };
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await tempDir('postgres');
    queue = await connectRunQueue({ url: server.url });
    catalog = createPostgresRunCatalog({ connectionString: server.url });
  });
  afterAll(async () => {
    await catalog?.close();
    await queue?.close();
    await server?.stop();
    await dir?.cleanup();
  });

  it("shows a suspended run as waiting in the store's run index, then as succeeded once answered", async () => {
    const worker = await work();
    try {
      const runId = await queue.enqueueRun({
        source: `digraph gate { start [shape=Mdiamond]; ask [shape=hexagon, label="Go?"]; done [shape=Msquare]; start -> ask; ask -> done [label="[Y] Yes"] }`,
        graphName: 'gate',
      });
      await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('waiting');
      const [entry] = await catalog.listRuns({ status: 'waiting' });
      expect(entry).toMatchObject({ runId, graphName: 'gate', status: 'waiting', currentNode: 'ask' });
      await queue.answerRun({ runId, text: 'Y' });
      await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
      expect((await catalog.listRuns({ status: 'success' })).map((run) => run.runId)).toContain(runId);
      expect((await catalog.open(runId).readCheckpoint())?.completed_nodes).toEqual(['start', 'ask', 'done']);
    } finally {
      await worker.stop();
    }
  }, 120_000);

  it('fails a run whose job used up its retries (dead letter queue): the queue, the run index and the log say why; resume still works', async () => {
    const gate = `digraph gate { start [shape=Mdiamond]; ask [shape=hexagon, label="Go?"]; done [shape=Msquare]; start -> ask; ask -> done [label="[Y] Yes"] }`;
    const healthy = await work();
    const runId = await queue.enqueueRun({ source: gate, graphName: 'gate' });
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('waiting');
    await healthy.stop();

    // A worker whose store fails on every attempt of this run's job (3 = 1 + retryLimit 2), then recovers.
    const { worker: failing, seen, faults } = await flakyWorker(runId);
    try {
      await queue.answerRun({ runId, text: 'Y' });
      const reason = "the run's job failed 3 times: the run store is unreachable (test fault)";
      await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('fail');
      expect((await queue.readRun(runId))?.error).toBe(reason);
      // Dead-lettered: the queue says so and when (`attractor runs --status dead`, `retry-dead`).
      expect((await queue.readRun(runId))?.deadAt).toEqual(expect.any(String));
      expect(await queue.listRunStates({ dead: true })).toEqual([
        expect.objectContaining({ runId, state: 'fail', graphName: 'gate', error: reason }),
      ]);
      expect(faults()).toBe(0);
      await expect
        .poll(async () => (await catalog.listRuns({ status: 'fail' })).map((run) => run.runId), {
          timeout: 60_000,
        })
        .toContain(runId);
      expect((await catalog.open(runId).readEvents()).at(-1)).toMatchObject({
        type: 'pipeline.failed',
        error: reason,
        nodeId: 'ask',
      });
      await expect
        .poll(() => seen, { timeout: 60_000 })
        .toContainEqual({ type: 'run.finished', runId, status: 'fail', failureReason: reason });
    } finally {
      await failing.stop();
    }

    // The run is failed, not lost: resumed, it takes its stored answer and completes.
    const again = await work();
    try {
      expect(await queue.resumeRun({ runId })).toBe('fail');
      expect((await queue.readRun(runId))?.deadAt).toBeUndefined();
      expect((await queue.listRunStates({ dead: true })).map((run) => run.runId)).not.toContain(runId);
      await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
      expect((await catalog.listRuns({ status: 'success' })).map((run) => run.runId)).toContain(runId);
    } finally {
      await again.stop();
    }
  }, 180_000);

  it("fails a run waiting at a gate whose deadline job used up its retries, instead of leaving it waiting; resumed, it takes the gate's default", async () => {
    const gate = `digraph gate { start [shape=Mdiamond]; ask [shape=hexagon, label="Go?", timeout="5s", "human.default_choice"="hold"]; ship [shape=box]; hold [shape=box]; done [shape=Msquare]; start -> ask; ask -> ship [label="[S] Ship"]; ask -> hold [label="[H] Hold"]; ship -> done; hold -> done }`;
    // The deadline job takes the queue's retry settings of the moment it is scheduled.
    const asker = await work({ retryLimit: 2, retryDelaySeconds: 0 });
    const runId = await queue.enqueueRun({ source: gate, graphName: 'gate' });
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('waiting');
    expect((await queue.readRun(runId))?.deadlineAt).toBeDefined();
    await asker.stop();

    // A worker whose store fails on every attempt of the deadline job (3 = 1 + retryLimit 2), then recovers.
    const { worker: failing, seen, faults } = await flakyWorker(runId);
    const reason = "the run's job failed 3 times: the run store is unreachable (test fault)";
    try {
      await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('fail');
      expect(await queue.readRun(runId)).toMatchObject({ state: 'fail', error: reason });
      expect(faults()).toBe(0);
      // The queue's record fails first, then the log gets its pipeline.failed.
      await expect
        .poll(() => seen, { timeout: 60_000 })
        .toContainEqual({ type: 'run.finished', runId, status: 'fail', failureReason: reason });
      expect((await catalog.open(runId).readEvents()).at(-1)).toMatchObject({
        type: 'pipeline.failed',
        error: reason,
        nodeId: 'ask',
      });
      expect((await catalog.listRuns({ status: 'fail' })).map((run) => run.runId)).toContain(runId);
    } finally {
      await failing.stop();
    }

    // Resumed, the gate's deadline has passed: it takes the default and the run completes through hold.
    const again = await work();
    try {
      expect(await queue.resumeRun({ runId })).toBe('fail');
      expect((await queue.readRun(runId))?.deadAt).toBeUndefined();
      expect((await queue.listRunStates({ dead: true })).map((run) => run.runId)).not.toContain(runId);
      await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
      expect((await catalog.open(runId).readCheckpoint())?.completed_nodes).toEqual([
        'start',
        'ask',
        'hold',
        'done',
      ]);
    } finally {
      await again.stop();
    }
  }, 180_000);

  it('forgets a run that ended (purge), never one still queued, and lists states without requests', async () => {
    const runId = await queue.enqueueRun({
      source: 'digraph "quick-one" { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }',
    });
    expect((await queue.listRunStates()).find((run) => run.runId === runId)).toEqual({
      runId,
      state: 'queued',
      graphName: 'quick-one',
      enqueuedAt: expect.any(String),
    });
    expect(await queue.removeRun({ runId })).toEqual({ removed: false, state: 'queued' });
    expect(await queue.cancelRun({ runId })).toBe('queued');
    expect(await queue.removeRun({ runId })).toEqual({ removed: true, state: 'cancelled' });
    expect(await queue.readRun(runId)).toBeUndefined();
    expect(await queue.removeRun({ runId })).toEqual({ removed: false, state: undefined });
  });
});
