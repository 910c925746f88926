import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { PipelineEvent } from '@attractor/engine';
import { createTestCheckpoint, createTestManifest } from '@attractor/engine/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createPostgresRunCatalog,
  describeLocation,
  type PostgresRunCatalog,
  SCHEMA_VERSION,
  StoreSchemaVersionError,
} from '../src/index.js';
import { adminQuery, freshSchema, postgresAvailable, usePostgresServer } from './support/postgres.js';

const migrate = new URL('./fixtures/migrate.mjs', import.meta.url).pathname;

function stamp<TEvent extends { type: string }>(seq: number, event: TEvent): PipelineEvent {
  return {
    seq,
    timestamp: `2026-01-01T00:00:0${seq}.000Z`,
    runId: 'r',
    ...event,
  } as unknown as PipelineEvent;
}

describe('describeLocation', () => {
  it('names user, host, port and database, never the password', () => {
    expect(describeLocation('postgres://attractor:s3cr3t-pw@db.internal:6543/runs?sslmode=verify-full')).toBe(
      'postgres://attractor@db.internal:6543/runs',
    );
    expect(describeLocation('postgresql://me:p%40ss@127.0.0.1/x')).toBe('postgres://me@127.0.0.1/x');
  });
});

describe.skipIf(!postgresAvailable)('the PostgreSQL run catalog (a real server)', () => {
  const server = usePostgresServer();
  let catalog: PostgresRunCatalog;
  const catalogSchema = freshSchema();
  beforeAll(() => {
    catalog = createPostgresRunCatalog({ connectionString: server().url, schema: catalogSchema });
  });
  afterAll(async () => {
    await catalog?.close();
  });

  it('shows where it lives without the password, in location and in every store key', () => {
    const { password, port } = server();
    expect(catalog.location).toBe(`postgres://attractor@127.0.0.1:${port}/postgres`);
    const store = catalog.open('run-1');
    expect(store.logsRoot).toBe(`postgres://attractor@127.0.0.1:${port}/postgres#run-1`);
    expect(store.logsRoot).not.toContain(password);
    expect(store.child('review/child').logsRoot).toBe(`${store.logsRoot}/review/child`);
  });

  it('keeps the run index up to date as manifests, events and checkpoints are written', async () => {
    const runId = `index-${randomUUID()}`;
    const store = catalog.open(runId);
    await store.writeManifest(
      createTestManifest({
        run_id: runId,
        graph_name: 'review',
        goal: 'ship it',
        started_at: '2030-01-01T00:00:00.000Z',
      }),
    );
    const lock = await store.acquireLock({ since: '2030-01-01T00:00:00.000Z' });
    await store.appendEvents([
      stamp(1, {
        type: 'pipeline.started',
        name: 'review',
        goal: 'ship it',
        logsRoot: store.logsRoot,
        resumed: false,
        startNodeId: 'start',
      }),
      stamp(2, {
        type: 'stage.started',
        nodeId: 'plan',
        index: 1,
        visit: 1,
        attempt: 1,
        label: 'Plan',
        handlerType: 'codergen',
      }),
      stamp(3, {
        type: 'agent.usage',
        nodeId: 'plan',
        inputTokens: 1200,
        outputTokens: 300,
        costUsd: 0.0125,
      }),
      stamp(4, {
        type: 'stage.started',
        nodeId: 'lint',
        index: 1,
        visit: 1,
        attempt: 1,
        label: 'Lint',
        handlerType: 'tool',
        branchPath: ['fan/a'],
      }),
    ]);
    let [entry] = await catalog.listRuns({ graph: 'review' });
    expect(entry).toEqual({
      runId,
      graphName: 'review',
      goal: 'ship it',
      status: 'running',
      currentNode: 'plan',
      startedAt: '2030-01-01T00:00:00.000Z',
      tokens: 1500,
      inputTokens: 1200,
      outputTokens: 300,
      costUsd: 0.0125,
    });
    await store.appendEvents([
      stamp(5, { type: 'interview.started', nodeId: 'approve', question: 'OK?', stage: 'approve' }),
    ]);
    expect((await catalog.listRuns({ status: 'waiting' })).map((run) => run.runId)).toEqual([runId]);
    await store.appendEvents([
      stamp(6, {
        type: 'interview.completed',
        nodeId: 'approve',
        question: 'OK?',
        answer: 'yes',
        durationMs: 5,
      }),
      stamp(7, { type: 'agent.usage', nodeId: 'fix', inputTokens: 10, outputTokens: 5, costUsd: 'unknown' }),
    ]);
    await store.writeCheckpoint(
      createTestCheckpoint({
        run_id: runId,
        state: 'success',
        current_node: 'exit',
        next_node: null,
        timestamp: '2030-01-01T00:05:00.000Z',
      }),
    );
    await lock.release();
    [entry] = await catalog.listRuns({ graph: 'review' });
    expect(entry).toMatchObject({
      status: 'success',
      currentNode: 'exit',
      endedAt: '2030-01-01T00:05:00.000Z',
      tokens: 1515,
      costUsd: 0.0125,
    });
  });

  it("keeps a run's totals in its index entry as events are appended, and computes them for runs written before", async () => {
    /**
     * Writes a fork that was cancelled and resumed, suspended at a gate and continued by its answer, and so on, in
     * three batches of events (a resume's count depends on how the batch before ended).
     */
    const writeRun = async (into: PostgresRunCatalog, runId: string): Promise<void> => {
      const store = into.open(runId);
      const at = (seq: number, event: Record<string, unknown> & { type: string }) => ({
        ...stamp(seq, event as { type: string }),
        timestamp: `2030-02-01T00:00:${String(seq).padStart(2, '0')}.000Z`,
        runId,
      });
      const started = (seq: number, fields: Record<string, unknown>) =>
        at(seq, {
          type: 'pipeline.started',
          name: 'totals',
          goal: '',
          logsRoot: store.logsRoot,
          startNodeId: 'start',
          ...fields,
        });
      await store.writeManifest(
        createTestManifest({
          run_id: runId,
          graph_name: 'totals',
          started_at: '2030-02-01T00:00:00.000Z',
          forked_from: {
            run_id: 'source-run',
            logs_root: 'source-run',
            checkpoint: 3,
            node: 'plan',
            visit: 2,
          },
        }),
      );
      await store.appendEvents([
        started(1, { resumed: true, forkedFrom: { runId: 'source-run', node: 'plan', visit: 2 } }),
        at(2, { type: 'agent.usage', nodeId: 'plan', inputTokens: 100, outputTokens: 20 }),
        at(3, { type: 'parallel.completed', nodeId: 'fan', successCount: 1, failureCount: 1, durationMs: 9 }),
        at(4, { type: 'pipeline.cancelled', reason: 'stop', durationMs: 1000 }),
      ]);
      await store.appendEvents([
        started(5, { resumed: true }),
        // The node ran again: its latest count replaces the first.
        at(6, { type: 'parallel.completed', nodeId: 'fan', successCount: 0, failureCount: 2, durationMs: 9 }),
        at(7, {
          type: 'foreach.completed',
          nodeId: 'each',
          branchPath: ['fan/a'],
          failureCount: 1,
          durationMs: 3,
        }),
        at(8, { type: 'agent.usage', nodeId: 'fix', branchPath: ['fan/a'], inputTokens: 5, outputTokens: 5 }),
        // A branch's and a child pipeline's starts and ends are no resume and end no leg of the run.
        started(9, { resumed: true, branchPath: ['child:review'] }),
        at(10, { type: 'pipeline.completed', branchPath: ['child:review'], durationMs: 50 }),
        at(11, { type: 'pipeline.suspended', stage: 'ask', durationMs: 500 }),
      ]);
      await store.appendEvents([
        // The answer to the gate continues the suspended run: no resume; a cancelled one resumed is one.
        started(12, { resumed: true }),
        at(13, { type: 'pipeline.cancelled', reason: 'stop', durationMs: 100 }),
        started(14, { resumed: true }),
        at(15, { type: 'pipeline.suspended', stage: 'ask', durationMs: 10 }),
        started(16, { resumed: true }),
        at(17, { type: 'pipeline.completed', durationMs: 250, artifactCount: 0, completedCount: 4 }),
      ]);
      await store.close();
    };
    const expected = {
      runId: 'totals-run',
      graphName: 'totals',
      status: 'success',
      forkedFrom: 'source-run',
      forkedAt: { node: 'plan', visit: 2 },
      tokens: 130,
      inputTokens: 105,
      outputTokens: 25,
      durationMs: 1860,
      resumes: 2,
      failedBranches: 2,
      failedItems: 1,
      endedAt: '2030-02-01T00:00:17.000Z',
    };
    const schema = freshSchema();
    const writer = createPostgresRunCatalog({ connectionString: server().url, schema });
    try {
      await writeRun(writer, 'totals-run');
      expect(await writer.readRunEntry('totals-run')).toMatchObject(expected);
    } finally {
      await writer.close();
    }
    // The same run in a store of schema version 1: migrating computes its totals from its manifest and events.
    await adminQuery(
      server().url,
      `ALTER TABLE "${schema}".runs DROP COLUMN input_tokens, DROP COLUMN output_tokens, DROP COLUMN legs_ms,
         DROP COLUMN resumes, DROP COLUMN suspended, DROP COLUMN failures, DROP COLUMN forked_from_node, DROP COLUMN forked_from_visit,
         DROP COLUMN archived_at;
       DELETE FROM "${schema}".schema_migrations WHERE version > 1`,
    );
    const upgraded = createPostgresRunCatalog({ connectionString: server().url, schema });
    try {
      expect(await upgraded.readRunEntry('totals-run')).toMatchObject(expected);
    } finally {
      await upgraded.close();
    }
  });

  it('announces appended events to subscribers of another catalog (NOTIFY), with the top-level run id', async () => {
    const reader = createPostgresRunCatalog({ connectionString: server().url, schema: catalog.schema });
    const heard: string[] = [];
    const unsubscribe = reader.subscribeEvents((runId) => heard.push(runId));
    try {
      const runId = `notify-${randomUUID()}`;
      // The listening connection needs a moment to LISTEN; events appended before it are not announced.
      const deadline = Date.now() + 60_000;
      for (let seq = 1; !heard.includes(runId) && Date.now() < deadline; seq += 1) {
        const store = catalog.open(runId);
        await store.appendEvents([stamp(seq, { type: 'pipeline.started', name: 'g' })]);
        await store.close();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(heard).toContain(runId);
      const child = catalog.open(runId).child('review/child');
      heard.length = 0;
      await child.appendEvents([stamp(1, { type: 'pipeline.started', name: 'child' })]);
      await child.close();
      await vi.waitFor(() => expect(heard).toContain(runId), { timeout: 60_000 });
      expect(heard.every((id) => id === runId)).toBe(true);
    } finally {
      unsubscribe();
      await reader.close();
    }
  });

  it('refuses the next checkpoint when a write the engine did not wait for was lost', async () => {
    const store = catalog.open(`lost-${randomUUID()}`);
    await store.appendEvents([stamp(1, { type: 'stage.log', level: 'info', message: 'kept' })]);
    // A seq that is not a number: the server refuses the statement.
    await store.appendEvents([
      { ...stamp(2, { type: 'stage.log', level: 'info', message: 'lost' }), seq: 'x' } as never,
    ]);
    await store.appendEvents([stamp(3, { type: 'stage.log', level: 'info', message: 'after' })]);
    await expect(store.writeCheckpoint(createTestCheckpoint())).rejects.toThrow(
      /invalid input syntax for type bigint/,
    );
    const other = createPostgresRunCatalog({ connectionString: server().url, schema: catalogSchema });
    try {
      const events = await other.open(store.logsRoot.split('#')[1]!).readEvents();
      expect(events.map((event) => event.seq)).not.toContain(2);
      expect(events.map((event) => event.seq)).toContain(1);
      expect(await other.open(store.logsRoot.split('#')[1]!).readCheckpoint()).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('reports a running run whose runner holds no lock as interrupted', async () => {
    const runId = `crashed-${randomUUID()}`;
    const store = catalog.open(runId);
    await store.writeManifest(createTestManifest({ run_id: runId, graph_name: 'crashy' }));
    const lock = await store.acquireLock({ since: '2026-01-01T00:00:00.000Z' });
    expect((await catalog.listRuns({ graph: 'crashy' }))[0]?.status).toBe('running');
    await lock.release();
    expect((await catalog.listRuns({ graph: 'crashy' }))[0]?.status).toBe('interrupted');
    expect(
      (await catalog.listRuns({ status: 'interrupted', graph: 'crashy' })).map((run) => run.runId),
    ).toEqual([runId]);
  });

  it('archives a run in its index entry (archived_at, the first time kept) and unarchives it', async () => {
    const runId = `archived-${randomUUID()}`;
    const graph = `archive-${randomUUID()}`;
    await catalog.open(runId).writeManifest(createTestManifest({ run_id: runId, graph_name: graph }));
    expect((await catalog.readRunEntry(runId))?.archivedAt).toBeUndefined();

    expect(await catalog.setRunArchived({ runId, archivedAt: new Date('2026-03-04T05:06:07.089Z') })).toBe(
      true,
    );
    expect((await catalog.readRunEntry(runId))?.archivedAt).toBe('2026-03-04T05:06:07.089Z');
    expect(await catalog.setRunArchived({ runId, archivedAt: new Date('2027-01-01T00:00:00.000Z') })).toBe(
      true,
    );
    expect((await catalog.listRuns({ graph })).map((entry) => entry.archivedAt)).toEqual([
      '2026-03-04T05:06:07.089Z',
    ]);

    expect(await catalog.setRunArchived({ runId, archivedAt: undefined })).toBe(true);
    expect(await catalog.readRunEntry(runId)).not.toHaveProperty('archivedAt');
    expect(await catalog.setRunArchived({ runId: `none-${randomUUID()}`, archivedAt: new Date() })).toBe(
      false,
    );
    await expect(catalog.setRunArchived({ runId: '../x', archivedAt: undefined })).rejects.toThrow(
      'Run id "../x" is invalid',
    );
  });

  it('lists runs newest first, filtered and limited, with fork and restart origins, child runs left out', async () => {
    const graph = `g-${randomUUID()}`;
    const first = catalog.open(`first-${graph}`);
    await first.writeManifest(
      createTestManifest({ run_id: 'first', graph_name: graph, started_at: '2026-03-01T00:00:00.000Z' }),
    );
    const forked = catalog.open(`forked-${graph}`);
    await forked.writeManifest(
      createTestManifest({
        run_id: 'forked',
        graph_name: graph,
        started_at: '2026-03-02T00:00:00.000Z',
        forked_from: {
          run_id: `first-${graph}`,
          logs_root: first.logsRoot,
          checkpoint: 1,
          node: 'plan',
          visit: 1,
        },
      }),
    );
    const restarted = catalog.open(`restarted-${graph}`);
    await restarted.writeManifest(
      createTestManifest({
        run_id: 'restarted',
        graph_name: graph,
        started_at: '2026-03-03T00:00:00.000Z',
        restarted_from: first.logsRoot,
      }),
    );
    await first
      .child('review/child')
      .writeManifest(createTestManifest({ run_id: 'child', graph_name: graph }));
    const runs = await catalog.listRuns({ graph });
    expect(runs.map((run) => run.runId)).toEqual([`restarted-${graph}`, `forked-${graph}`, `first-${graph}`]);
    expect(runs[0]?.parentRunId).toBe(`first-${graph}`);
    expect(runs[1]?.forkedFrom).toBe(`first-${graph}`);
    expect((await catalog.listRuns({ graph, limit: 2 })).map((run) => run.runId)).toEqual([
      `restarted-${graph}`,
      `forked-${graph}`,
    ]);
    await expect(catalog.listRuns({ status: 'done' as never })).rejects.toThrow(/Unknown run status "done"/);
  });

  it('applies its migrations once when several processes start on a new schema at the same moment', async () => {
    const schema = freshSchema();
    const outputs = await Promise.all(
      Array.from({ length: 4 }, () => promisify(execFile)(process.execPath, [migrate, server().url, schema])),
    );
    expect(outputs.map((output) => output.stdout)).toEqual(['ok\n', 'ok\n', 'ok\n', 'ok\n']);
    const rows = await adminQuery<{ version: number }>(
      server().url,
      `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
    );
    expect(rows.map((row) => row.version)).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, index) => index + 1),
    );
  });

  it('refuses a database migrated by a newer version of the package', async () => {
    const schema = freshSchema();
    const newer = createPostgresRunCatalog({ connectionString: server().url, schema });
    try {
      await newer.migrate();
      await adminQuery(
        server().url,
        `INSERT INTO "${schema}".schema_migrations (version, name) VALUES ($1, 'future')`,
        [SCHEMA_VERSION + 1],
      );
      const again = createPostgresRunCatalog({ connectionString: server().url, schema });
      const error = await again
        .open('x')
        .readManifest()
        .catch((caught: unknown) => caught);
      await again.close();
      expect(StoreSchemaVersionError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/newer than this @attractor\/store-postgres knows/);
    } finally {
      await newer.close();
    }
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => createPostgresRunCatalog({ connectionString: server().url, schema: 'x"; DROP' })).toThrow(
      /not a plain identifier/,
    );
  });
});
