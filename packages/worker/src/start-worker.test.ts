import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directoryCatalog,
  postgresAvailableForTests,
  prepareSimulated,
  startPostgresServer,
  tempDir,
} from '../test/worker-fixtures.js';
import { connectRunQueue, type RunQueue, startWorker } from './index.js';

const available = postgresAvailableForTests('@attractor/worker startWorker tests');

describe.skipIf(!available)('startWorker (issue 18)', () => {
  let server: Awaited<ReturnType<typeof startPostgresServer>>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let queue: RunQueue;
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await tempDir('start');
    queue = await connectRunQueue({ url: server.url });
  });
  afterAll(async () => {
    await queue?.close();
    await server?.stop();
    await dir?.cleanup();
  });

  it('executes a queued run in its workdir and records it in the shared store', async () => {
    const runId = await queue.enqueueRun({
      source: `digraph demo { start [shape=Mdiamond]; work [shape=parallelogram, tool_command="echo $ATTRACTOR_NODE_ID >> trail.txt"]; done [shape=Msquare]; start -> work -> done }`,
      filename: 'demo.dot',
      graphName: 'demo',
    });
    const catalog = directoryCatalog(join(dir.path, 'runs'));
    const worker = await startWorker({
      catalog,
      queueUrl: server.url,
      workdirRoot: join(dir.path, 'work'),
      prepare: prepareSimulated,
      pollingIntervalSeconds: 0.5,
    });
    try {
      await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
    } finally {
      await worker.stop();
    }
    expect(await readFile(join(dir.path, 'work', runId, 'trail.txt'), 'utf8')).toBe('work\n');
    const checkpoint = await catalog.open(runId).readCheckpoint();
    expect(checkpoint?.state).toBe('success');
    expect((await queue.readRun(runId))?.worker).toBe(worker.id);
  });

  it('stop({ drainSeconds }) lets the running stage finish, then hands the run back at the checkpoint after it', async () => {
    const runId = await queue.enqueueRun({
      source: `digraph drain { start [shape=Mdiamond]; slow [shape=parallelogram, tool_command="sleep 2; echo slow >> trail.txt"]; after [shape=parallelogram, tool_command="echo after >> trail.txt"]; done [shape=Msquare]; start -> slow -> after -> done }`,
      graphName: 'drain',
    });
    const catalog = directoryCatalog(join(dir.path, 'runs'));
    const worker = await startWorker({
      catalog,
      queueUrl: server.url,
      workdirRoot: join(dir.path, 'work'),
      prepare: prepareSimulated,
      pollingIntervalSeconds: 0.5,
    });
    await expect
      .poll(
        async () =>
          (await catalog.open(runId).readEvents()).some(
            (event) => event.type === 'stage.started' && event.nodeId === 'slow',
          ),
        { timeout: 60_000 },
      )
      .toBe(true);
    await worker.stop({ drainSeconds: 60 });
    expect(await readFile(join(dir.path, 'work', runId, 'trail.txt'), 'utf8')).toBe('slow\n');
    expect((await queue.readRun(runId))?.state).toBe('queued');
    expect((await catalog.open(runId).readCheckpoint())?.completed_nodes).toEqual(['start', 'slow']);
    // Another worker goes on with the next stage.
    const next = await startWorker({
      catalog,
      queueUrl: server.url,
      workdirRoot: join(dir.path, 'work'),
      prepare: prepareSimulated,
      pollingIntervalSeconds: 0.5,
    });
    try {
      await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
    } finally {
      await next.stop();
    }
    expect(await readFile(join(dir.path, 'work', runId, 'trail.txt'), 'utf8')).toBe('slow\nafter\n');
  });
});
