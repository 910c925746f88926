import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HandlerRegistry, readRun, runPipeline } from '@attractor/engine';
import { createTestGraph } from '@attractor/engine/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresRunCatalog, type PostgresRunCatalog } from '../src/index.js';
import { freshSchema, postgresAvailable, usePostgresServer } from './support/postgres.js';

const runChain = new URL('./fixtures/run-chain.mjs', import.meta.url).pathname;

describe.skipIf(!postgresAvailable)('the engine on the PostgreSQL store', () => {
  const server = usePostgresServer();
  const schema = freshSchema();
  let catalog: PostgresRunCatalog;
  let directory: string;
  beforeAll(() => {
    catalog = createPostgresRunCatalog({ connectionString: server().url, schema });
    directory = mkdtempSync(join(tmpdir(), 'engine-on-postgres-'));
  });
  afterAll(async () => {
    await catalog?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('resumes a run whose process was killed in a stage from its last checkpoint, running only that stage again', async () => {
    const runId = 'chain-killed-in-n3';
    const logFile = join(directory, 'executed.log');
    const killed = await promisify(execFile)(process.execPath, [
      runChain,
      'run',
      server().url,
      schema,
      runId,
      logFile,
      'n3',
    ]).catch((error: { signal?: string }) => error);
    expect((killed as { signal?: string }).signal).toBe('SIGKILL');
    expect(await catalog.listRuns()).toMatchObject([{ runId, status: 'interrupted', currentNode: 'n3' }]);

    const resumed = await promisify(execFile)(process.execPath, [
      runChain,
      'resume',
      server().url,
      schema,
      runId,
      logFile,
    ]);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'success' });
    expect(readFileSync(logFile, 'utf8').split('\n').filter(Boolean)).toEqual([
      'n1',
      'n2',
      'n3',
      'n3',
      'n4',
      'n5',
    ]);

    const store = catalog.open(runId);
    const record = await readRun(store);
    expect(record.checkpoint).toMatchObject({ state: 'success', context: { seen_n1: true, seen_n5: true } });
    expect(record.lock).toBeUndefined();
    expect(record.stages.map((stage) => [stage.stagePath, stage.status?.outcome])).toEqual([
      ['exit', 'success'],
      ['n1', 'success'],
      ['n2', 'success'],
      ['n3', 'success'],
      ['n4', 'success'],
      ['n5', 'success'],
      ['start', 'success'],
    ]);
    expect(Buffer.from((await store.readStageFile('n3', 'response.md'))!).toString()).toBe('done n3');
    const events = await store.readEvents();
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === 'pipeline.started')).toHaveLength(2);
    expect(events.at(-1)?.type).toBe('pipeline.completed');
    expect(await catalog.listRuns()).toMatchObject([{ runId, status: 'success', currentNode: 'exit' }]);
  });
  it("keeps a failed child run in the run's child store and names it by the store's location", async () => {
    const runId = 'parent-of-failed-child';
    const store = catalog.open(runId);
    const childGraph = createTestGraph({ id: 'child', edges: ['start -> broken -> exit'] });
    const registry = new HandlerRegistry({
      defaultHandler: { execute: async () => ({ status: 'fail', failureReason: 'broken on purpose' }) },
      handlers: {
        'stack.manager_loop': {
          async execute({ runtime }) {
            const result = await runtime.runChild({ graph: childGraph, name: 'child' }).result;
            return {
              status: 'fail',
              failureReason: `child ${result.logsRoot} failed: ${result.failureReason}`,
            };
          },
        },
      },
    });
    const result = await runPipeline({
      graph: createTestGraph({ nodes: [{ id: 'boss', shape: 'house' }], edges: ['start -> boss -> exit'] }),
      registry,
      logsRoot: `/attractor-store/${runId}`,
      createRunStore: () => catalog.open(runId),
    });
    const childRoot = `${store.logsRoot}/boss/child`;
    expect(childRoot).toMatch(
      /^postgres:\/\/[^/]+@127\.0\.0\.1:\d+\/[^#]+#parent-of-failed-child\/boss\/child$/,
    );
    expect(result.failureReason).toBe(
      `node "boss" failed: child ${childRoot} failed: node "broken" failed: broken on purpose`,
    );
    const child = store.child('boss/child');
    expect((await readRun(child)).checkpoint).toMatchObject({ state: 'fail' });
    expect((await child.readEvents())[0]).toMatchObject({
      type: 'pipeline.started',
      runId: 'child',
      logsRoot: childRoot,
    });
    await store.close();
  });
});
