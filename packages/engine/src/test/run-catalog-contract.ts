/**
 * The conformance kit for {@link RunCatalog} implementations (CONTRIBUTING.md "Writing tests"): the file
 * catalog and the PostgreSQL catalog pass it. Call {@link describeRunCatalogContract} from a Vitest test
 * file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PipelineEvent } from '../pipeline-event.js';
import type { RunLock } from '../run-lock.js';
import type { RunCatalog, RunManifest } from '../run-store.js';
import { createTestCheckpoint, createTestManifest } from './run-store-contract.js';

/** What the factory given to {@link describeRunCatalogContract} returns: a fresh, empty catalog. */
export interface RunCatalogFixture {
  readonly catalog: RunCatalog;
  /** Removes what the catalog left behind. Called after each test, after `catalog.close()`. */
  cleanup?(): Promise<void>;
}

function finalEvent(seq: number, type: 'pipeline.completed' | 'pipeline.cancelled'): PipelineEvent {
  const base = { seq, timestamp: '2026-01-04T01:00:00.000Z', runId: 'd' };
  return type === 'pipeline.cancelled'
    ? { ...base, type, reason: 'stopped by the user', durationMs: 5 }
    : { ...base, type, durationMs: 5, artifactCount: 0, completedCount: 3 };
}

/** The fields of an event at the human gate `gate` of run `runId`. */
function atGate(seq: number, runId: string) {
  return {
    seq,
    timestamp: `2026-01-06T00:00:0${seq}.000Z`,
    runId,
    stage: 'gate',
    question: { id: 'gate:1', text: 'Ship it?', type: 'yes_no', options: [], stage: 'gate' },
  } as const;
}

function interviewStarted(seq: number, runId = 'f'): PipelineEvent {
  return { ...atGate(seq, runId), type: 'interview.started' };
}

/** A worker suspended run `s` at gate `gate`: the `pipeline.suspended` that ends its log until it resumes. */
function suspended(seq: number): PipelineEvent {
  return {
    ...atGate(seq, 's'),
    type: 'pipeline.suspended',
    deadlineAt: '2026-01-06T01:00:01.000Z',
    durationMs: 2000,
  };
}

/**
 * Registers Vitest tests every {@link RunCatalog} must pass: runs written through `open(runId)` are listed newest
 * first with their status (`success`, `fail`, `cancelled`, `running`, `waiting`, `interrupted`), graph, goal, current
 * node, end time and fork origin; a run whose log ends with `pipeline.suspended` (no lock held) is `waiting`; filters by status, graph and run ids, a limit, and `countRuns` when the catalog has it; a run opened but never written is not listed;
 * `readRunEntry` gives the entry `listRuns` lists (undefined for a run never written); `open` twice gives the same run;
 * `removeRun` removes a run with everything stored of it (child runs, the runs a `loop_restart` continued), never one a
 * live runner holds.
 *
 * @example
 * describeRunCatalogContract('file catalog', () => {
 *   const directory = mkdtempSync(join(tmpdir(), 'runs-'));
 *   return { catalog: createFileRunCatalog(directory), cleanup: async () => rmSync(directory, { recursive: true }) };
 * });
 */
export function describeRunCatalogContract(
  name: string,
  createCatalog: () => RunCatalogFixture | Promise<RunCatalogFixture>,
): void {
  describe(`RunCatalog contract: ${name}`, () => {
    const opened: RunCatalogFixture[] = [];
    const locks: RunLock[] = [];
    const fresh = async (): Promise<RunCatalog> => {
      const fixture = await createCatalog();
      opened.push(fixture);
      return fixture.catalog;
    };
    afterEach(async () => {
      for (const lock of locks.splice(0)) await lock.release();
      for (const fixture of opened.splice(0)) {
        await fixture.catalog.close();
        await fixture.cleanup?.();
      }
    });

    /** Writes run `runId` started on day `day` of January 2026. */
    const writeRun = async (
      catalog: RunCatalog,
      runId: string,
      day: number,
      state: 'running' | 'success' | 'fail' | 'cancelled' | undefined,
      manifest: Partial<RunManifest> = {},
    ) => {
      const store = catalog.open(runId);
      const startedAt = `2026-01-0${day}T00:00:00.000Z`;
      await store.writeManifest(createTestManifest({ run_id: runId, started_at: startedAt, ...manifest }));
      if (state !== undefined) {
        await store.writeCheckpoint(
          createTestCheckpoint({
            run_id: runId,
            state,
            current_node: 'build',
            next_node: state === 'running' ? 'review' : null,
            timestamp: `2026-01-0${day}T00:30:00.000Z`,
            ...(state === 'fail' ? { failure_reason: 'tests failed' } : {}),
          }),
        );
      }
      return store;
    };

    it('lists nothing for an empty catalog and does not list a run opened but never written', async () => {
      const catalog = await fresh();
      expect(typeof catalog.location).toBe('string');
      expect(await catalog.listRuns()).toEqual([]);
      const store = catalog.open('never-written');
      expect(await store.readManifest()).toBeUndefined();
      expect(await catalog.listRuns()).toEqual([]);
    });

    it('gives the same run for the same id', async () => {
      const catalog = await fresh();
      await catalog.open('a').writeManifest(createTestManifest({ run_id: 'a' }));
      expect((await catalog.open('a').readManifest())?.run_id).toBe('a');
      expect(() => catalog.open('../escape')).toThrow(/invalid/);
    });

    it('lists runs newest first with their status, and filters them', async () => {
      const catalog = await fresh();
      await writeRun(catalog, 'a', 1, 'success');
      locks.push(
        await (await writeRun(catalog, 'b', 2, 'running')).acquireLock({ since: '2026-01-02T00:00:00.000Z' }),
      );
      await writeRun(catalog, 'c', 3, 'running');
      const cancelled = await writeRun(catalog, 'd', 4, 'running');
      await cancelled.appendEvents([finalEvent(1, 'pipeline.cancelled')]);
      await writeRun(catalog, 'e', 5, 'fail', {
        graph_name: 'other',
        forked_from: { run_id: 'a', logs_root: 'a', checkpoint: 1, node: 'build', visit: 1 },
      });
      const waiting = await writeRun(catalog, 'f', 6, 'running');
      locks.push(await waiting.acquireLock({ since: '2026-01-06T00:00:00.000Z' }));
      await waiting.appendEvents([interviewStarted(1)]);
      await writeRun(catalog, 'g', 7, undefined);

      const runs = await catalog.listRuns();
      expect(runs.map((run) => [run.runId, run.status])).toEqual([
        ['g', 'interrupted'],
        ['f', 'waiting'],
        ['e', 'fail'],
        ['d', 'cancelled'],
        ['c', 'interrupted'],
        ['b', 'running'],
        ['a', 'success'],
      ]);
      const byId = new Map(runs.map((run) => [run.runId, run]));
      expect(byId.get('a')).toMatchObject({
        graphName: 'g',
        goal: 'the goal',
        startedAt: '2026-01-01T00:00:00.000Z',
        currentNode: 'build',
      });
      expect(byId.get('a')?.endedAt).toBeDefined();
      expect(byId.get('b')).toMatchObject({ currentNode: 'review' });
      expect(byId.get('b')?.endedAt).toBeUndefined();
      expect(byId.get('e')).toMatchObject({
        graphName: 'other',
        forkedFrom: 'a',
        forkedAt: { node: 'build', visit: 1 },
      });

      for (const run of runs) expect(await catalog.readRunEntry(run.runId)).toEqual(run);
      expect(await catalog.readRunEntry('never-written')).toBeUndefined();
      await expect(catalog.readRunEntry('../escape')).rejects.toThrow(/invalid/);

      expect((await catalog.listRuns({ status: 'interrupted' })).map((run) => run.runId)).toEqual(['g', 'c']);
      expect((await catalog.listRuns({ graph: 'other' })).map((run) => run.runId)).toEqual(['e']);
      expect((await catalog.listRuns({ limit: 2 })).map((run) => run.runId)).toEqual(['g', 'f']);
      expect(await catalog.listRuns({ status: 'success', graph: 'other' })).toEqual([]);
      // Some runs by id (an id it does not list is left out), with the other filters.
      expect(
        (await catalog.listRuns({ runIds: ['a', 'e', 'g', 'never-written'] })).map((run) => run.runId),
      ).toEqual(['g', 'e', 'a']);
      expect(
        (await catalog.listRuns({ runIds: ['a', 'e'], graph: 'other' })).map((run) => run.runId),
      ).toEqual(['e']);
      expect(await catalog.listRuns({ runIds: [] })).toEqual([]);
      // A catalog that counts says what it would list.
      if (catalog.countRuns !== undefined) {
        expect(await catalog.countRuns()).toBe(runs.length);
        expect(await catalog.countRuns({ status: 'interrupted' })).toBe(2);
        expect(await catalog.countRuns({ graph: 'other', limit: 0 })).toBe(1);
        expect(await catalog.countRuns({ runIds: ['a', 'never-written'] })).toBe(1);
      }
      // Listing some runs by id leaves the others listed as before.
      expect(await catalog.listRuns()).toEqual(runs);
    });

    it('reports a run whose runner released its lock without an end as interrupted, and a finished one by its event', async () => {
      const catalog = await fresh();
      const store = await writeRun(catalog, 'x', 1, 'running');
      const lock = await store.acquireLock({ since: '2026-01-01T00:00:00.000Z' });
      expect((await catalog.listRuns())[0]?.status).toBe('running');
      await lock.release();
      expect((await catalog.listRuns())[0]?.status).toBe('interrupted');
      await store.appendEvents([finalEvent(1, 'pipeline.completed')]);
      expect((await catalog.listRuns())[0]?.status).toBe('success');
    });

    it('reports a run suspended at a gate as waiting (no runner holds it), and as running again once resumed', async () => {
      const catalog = await fresh();
      const store = await writeRun(catalog, 's', 6, 'running');
      const lock = await store.acquireLock({ since: '2026-01-06T00:00:00.000Z' });
      await store.appendEvents([interviewStarted(1, 's'), suspended(2)]);
      await lock.release();
      expect((await catalog.listRuns())[0]).toMatchObject({
        runId: 's',
        status: 'waiting',
        currentNode: 'review',
      });
      expect((await catalog.listRuns({ status: 'waiting' })).map((run) => run.runId)).toEqual(['s']);
      expect((await catalog.listRuns())[0]?.endedAt).toBeUndefined();
      expect(await catalog.readRunEntry('s')).toMatchObject({ status: 'waiting' });
      const resumed = await store.acquireLock({ since: '2026-01-06T02:00:00.000Z' });
      locks.push(resumed);
      await store.appendEvents([
        {
          type: 'pipeline.started',
          seq: 3,
          timestamp: '2026-01-06T02:00:00.000Z',
          runId: 's',
          name: 'g',
          goal: 'the goal',
          logsRoot: 's',
          resumed: true,
          startNodeId: 'gate',
        },
      ]);
      expect((await catalog.listRuns())[0]?.status).toBe('running');
      expect(await catalog.readRunEntry('s')).toMatchObject({ status: 'running' });
    });

    it('removes a run with its events, checkpoints, stage files, artifacts and child runs', async () => {
      const catalog = await fresh();
      const store = await writeRun(catalog, 'old', 1, 'success');
      await store.appendEvents([finalEvent(1, 'pipeline.completed')]);
      await store.writeStageFile('build', 'out.txt', 'built');
      await store.writeArtifact('report', 'all good');
      await store.child('review/child').writeManifest(createTestManifest({ run_id: 'child' }));
      await writeRun(catalog, 'kept', 2, 'success');
      await store.close();
      expect(await catalog.removeRun('old')).toBe(true);
      expect((await catalog.listRuns()).map((run) => run.runId)).toEqual(['kept']);
      expect(await catalog.readRunEntry('old')).toBeUndefined();
      const gone = catalog.open('old');
      expect(await gone.readManifest()).toBeUndefined();
      expect(await gone.readCheckpoint()).toBeUndefined();
      expect(await gone.readEvents()).toEqual([]);
      expect(await gone.readStageFile('build', 'out.txt')).toBeUndefined();
      expect(await gone.readArtifact('report')).toBeUndefined();
      expect(await gone.child('review/child').readManifest()).toBeUndefined();
      await gone.close();
      expect(await catalog.removeRun('old')).toBe(false);
      expect(await catalog.removeRun('never-written')).toBe(false);
      await expect(catalog.removeRun('../escape')).rejects.toThrow(/invalid/);
    });

    it('never removes a run a live runner holds', async () => {
      const catalog = await fresh();
      const store = await writeRun(catalog, 'busy', 1, 'running');
      locks.push(await store.acquireLock({ since: '2026-01-01T00:00:00.000Z' }));
      await expect(catalog.removeRun('busy')).rejects.toMatchObject({ code: 'RUN_LOCKED' });
      expect((await catalog.listRuns()).map((run) => [run.runId, run.status])).toEqual([['busy', 'running']]);
    });

    it('removes the runs a loop_restart continued along with the run that continues them', async () => {
      const catalog = await fresh();
      const first = await writeRun(catalog, 'loop', 1, 'running');
      await first.writeCheckpoint(
        createTestCheckpoint({ run_id: 'loop', state: 'restarted', restarted_to: 'loop-restart-1' }),
      );
      await writeRun(catalog, 'loop-restart-1', 2, 'success', { restarted_from: first.logsRoot });
      await first.close();
      expect((await catalog.listRuns()).map((run) => run.runId)).toEqual(['loop-restart-1']);
      expect(await catalog.removeRun('loop-restart-1')).toBe(true);
      const earlier = catalog.open('loop');
      expect(await earlier.readManifest()).toBeUndefined();
      await earlier.close();
    });
  });
}
