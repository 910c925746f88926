import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createFileRunCatalog } from '../file-run-catalog.js';
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
  await catalog.close();
  rmSync(directory, { recursive: true, force: true });
});
