import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { createFileRunCatalog, RUN_INDEX_FILE } from './file-run-catalog.js';
import type { RunCatalog } from './run-store.js';
import { createTestCheckpoint, createTestManifest } from './test/run-store-contract.js';

async function writeFinished(catalog: RunCatalog, runId: string, day: number): Promise<void> {
  const store = catalog.open(runId);
  await store.writeManifest(
    createTestManifest({ run_id: runId, started_at: `2026-01-0${day}T00:00:00.000Z` }),
  );
  await store.writeCheckpoint(createTestCheckpoint({ run_id: runId, state: 'success', next_node: null }));
  await store.close();
}

/** Makes a run directory look last changed a minute ago (past the index's settling time). */
function age(root: string, runId: string): void {
  const minuteAgo = new Date(Date.now() - 60_000);
  utimesSync(join(root, runId), minuteAgo, minuteAgo);
}

const indexed = (root: string): Record<string, { entry: { goal: string } | null }> =>
  (JSON.parse(readFileSync(join(root, RUN_INDEX_FILE), 'utf8')) as { runs: Record<string, never> }).runs;

describe('file catalog run index (issue 34 §6: `runs` of 10,000 runs)', () => {
  it('keeps finished runs in the index and lists them from it while their directory is unchanged', async () => {
    const root = tempDir();
    const catalog = createFileRunCatalog(root);
    for (const [runId, day] of [
      ['a', 1],
      ['b', 2],
    ] as const) {
      await writeFinished(catalog, runId, day);
      age(root, runId);
    }
    expect((await catalog.listRuns()).map((run) => run.runId)).toEqual(['b', 'a']);
    expect(Object.keys(indexed(root)).sort()).toEqual(['a', 'b']);
    // Read from the index, not from the run: an entry edited there is what the next listing shows.
    const file = JSON.parse(readFileSync(join(root, RUN_INDEX_FILE), 'utf8')) as {
      runs: Record<string, { entry: { goal: string } }>;
    };
    file.runs.a!.entry.goal = 'from the index';
    writeFileSync(join(root, RUN_INDEX_FILE), JSON.stringify(file));
    expect((await catalog.readRunEntry('a'))?.goal).toBe('the goal');
    expect((await catalog.listRuns()).find((run) => run.runId === 'a')?.goal).toBe('from the index');
  });

  it('reads a run again once its directory changed: a resumed run is running, not its indexed status', async () => {
    const root = tempDir();
    const catalog = createFileRunCatalog(root);
    await writeFinished(catalog, 'a', 1);
    age(root, 'a');
    expect((await catalog.listRuns())[0]?.status).toBe('success');
    expect(indexed(root).a).toBeDefined();
    const store = catalog.open('a');
    const lock = await store.acquireLock({ since: new Date().toISOString() });
    await store.writeCheckpoint(createTestCheckpoint({ run_id: 'a', state: 'running', next_node: 'review' }));
    expect((await catalog.listRuns())[0]).toMatchObject({ status: 'running', currentNode: 'review' });
    // Running, and changed just now: not indexed.
    expect(indexed(root).a).toBeUndefined();
    await lock.release();
    await store.close();
  });

  it('leaves out of the index what changed within the last seconds and what is gone', async () => {
    const root = tempDir();
    const catalog = createFileRunCatalog(root);
    await writeFinished(catalog, 'fresh', 1);
    await writeFinished(catalog, 'old', 2);
    age(root, 'old');
    await catalog.listRuns();
    expect(Object.keys(indexed(root))).toEqual(['old']);
    expect(await catalog.removeRun('old')).toBe(true);
    expect((await catalog.listRuns()).map((run) => run.runId)).toEqual(['fresh']);
    expect(Object.keys(indexed(root))).toEqual([]);
  });

  it('works without an index where the runs directory cannot be written', async () => {
    const root = tempDir();
    const catalog = createFileRunCatalog(root);
    await writeFinished(catalog, 'a', 1);
    age(root, 'a');
    // A directory named like the index file stands in for an unwritable one: the rename over it fails.
    mkdirSync(join(root, RUN_INDEX_FILE, 'x'), { recursive: true });
    expect((await catalog.listRuns()).map((run) => run.runId)).toEqual(['a']);
    expect((await catalog.listRuns()).map((run) => run.runId)).toEqual(['a']);
  });
});
