import { join } from 'node:path';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postgresAvailableForTests,
  prepareSimulated,
  startPostgresServer,
  tempDir,
} from '../test/worker-fixtures.js';
import { connectRunQueue, type RunQueue, startWorker } from './index.js';

const available = postgresAvailableForTests('@attractor/worker tests on the PostgreSQL run store');

describe.skipIf(!available)('a worker on the PostgreSQL run store (issue 18)', () => {
  let server: Awaited<ReturnType<typeof startPostgresServer>>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let queue: RunQueue;
  let catalog: ReturnType<typeof createPostgresRunCatalog>;
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
    const worker = await startWorker({
      catalog,
      queueUrl: server.url,
      workdirRoot: join(dir.path, 'work'),
      prepare: prepareSimulated,
      pollingIntervalSeconds: 0.5,
    });
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
});
