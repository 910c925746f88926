import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createFileRunCatalog } from '../file-run-catalog.js';
import type { PipelineEvent } from '../pipeline-event.js';
import { describeRunCatalogContract } from './run-catalog-contract.js';
import { createTestCheckpoint, createTestManifest } from './run-store-contract.js';

describeRunCatalogContract('file catalog', () => {
  const directory = mkdtempSync(join(tmpdir(), 'run-catalog-'));
  return {
    catalog: createFileRunCatalog(directory),
    cleanup: async () => rmSync(directory, { recursive: true, force: true }),
  };
});

it('file catalog: keeps each run in <runs directory>/<run id>/ (spec §5.6) and creates nothing on reads', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'run-catalog-'));
  const catalog = createFileRunCatalog(join(directory, 'runs'));
  expect(catalog.location).toBe(join(directory, 'runs'));
  await catalog.open('ghost').readCheckpoint();
  expect(readdirSync(directory)).toEqual([]);
  const store = catalog.open('r1');
  await store.writeManifest(createTestManifest({ run_id: 'r1' }));
  await store.writeCheckpoint(
    createTestCheckpoint({ run_id: 'r1', state: 'restarted', restarted_to: '../r1-restart-1' }),
  );
  const next = catalog.open('r1-restart-1');
  await next.writeManifest(
    createTestManifest({ run_id: 'r1', restarted_from: join(directory, 'runs', 'r1') }),
  );
  expect(store.logsRoot).toBe(join(directory, 'runs', 'r1'));
  expect(readdirSync(join(directory, 'runs')).sort()).toEqual(['r1', 'r1-restart-1']);
  // The restarted directory is listed through its continuation.
  expect((await catalog.listRuns()).map((run) => [run.runId, run.parentRunId])).toEqual([
    ['r1-restart-1', 'r1'],
  ]);
  expect(await catalog.readRunEntry('r1')).toBeUndefined();
  expect(await catalog.readRunEntry('r1-restart-1')).toMatchObject({ parentRunId: 'r1' });
  await catalog.close();
  rmSync(directory, { recursive: true, force: true });
});

/** The descriptors this process has open on `path` (Linux: /proc/self/fd). */
function openDescriptors(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile (the descriptor of readdirSync itself)
    }
  }).length;
}

it.skipIf(process.platform !== 'linux')(
  'file catalog: shares a run store until it is closed, then forgets it (a worker keeps no store per run it ran)',
  async () => {
    const directory = mkdtempSync(join(tmpdir(), 'run-catalog-'));
    const catalog = createFileRunCatalog(directory);
    const events = join(directory, 'r1', 'events.jsonl');
    const log: PipelineEvent = {
      type: 'stage.log',
      level: 'info',
      message: 'hello',
      nodeId: 'a',
      seq: 1,
      timestamp: '2026-01-01T00:00:00.000Z',
      runId: 'r1',
    };
    const store = catalog.open('r1');
    await store.writeManifest(createTestManifest({ run_id: 'r1' }));
    await store.appendEvents([log]);
    expect(openDescriptors(events)).toBe(1);
    expect(catalog.open('r1')).toBe(store);
    await store.close();
    expect(openDescriptors(events)).toBe(0);
    const again = catalog.open('r1');
    expect(again).not.toBe(store);
    await again.appendEvents([{ ...log, seq: 2 }]);
    expect(openDescriptors(events)).toBe(1);
    expect((await again.readEvents()).map((event) => event.seq)).toEqual([1, 2]);
    // Closing the store the catalog forgot changes nothing for the one it holds now.
    await store.close();
    expect(catalog.open('r1')).toBe(again);
    // The catalog closes the stores still open.
    await catalog.close();
    expect(openDescriptors(events)).toBe(0);
    rmSync(directory, { recursive: true, force: true });
  },
);
