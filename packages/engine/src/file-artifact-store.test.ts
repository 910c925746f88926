import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ArtifactNotFoundError } from './errors/artifact-not-found-error.js';
import { createArtifactStore } from './file-artifact-store.js';
import { createMemoryRunStore } from './test/memory-run-store.js';
import { createTestClock } from './test/test-clock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function store(thresholdBytes?: number) {
  const baseDir = mkdtempSync(join(tmpdir(), 'artifacts-'));
  dirs.push(baseDir);
  return {
    baseDir,
    artifacts: createArtifactStore({
      baseDir,
      clock: createTestClock(),
      ...(thresholdBytes === undefined ? {} : { thresholdBytes }),
    }),
  };
}

describe('createArtifactStore (spec §5.5)', () => {
  it('keeps small artifacts in memory', async () => {
    const { artifacts, baseDir } = store();
    const info = await artifacts.store({ id: 'small', data: { a: 1 } });
    expect(info).toMatchObject({ id: 'small', name: 'small', sizeBytes: 7, isFileBacked: false });
    expect(info.storedAt).toBe('2026-01-01T00:00:00.000Z');
    expect(await artifacts.retrieve('small')).toEqual({ a: 1 });
    expect(existsSync(join(baseDir, 'artifacts'))).toBe(false);
  });

  it('writes artifacts above 100 KB to {baseDir}/artifacts/{id}.json', async () => {
    const { artifacts, baseDir } = store();
    const big = 'x'.repeat(150 * 1024);
    const info = await artifacts.store({ id: 'big', name: 'Big output', data: big });
    expect(info.isFileBacked).toBe(true);
    expect(existsSync(join(baseDir, 'artifacts', 'big.json'))).toBe(true);
    expect(await artifacts.retrieve('big')).toBe(big);
  });

  it('lists, checks, removes and clears', async () => {
    const { artifacts, baseDir } = store(10);
    await artifacts.store({ id: 'one', data: 'short' });
    await artifacts.store({ id: 'two', data: 'a longer value' });
    expect(artifacts.list().map((info) => [info.id, info.isFileBacked])).toEqual([
      ['one', false],
      ['two', true],
    ]);
    expect(artifacts.has('one')).toBe(true);
    await artifacts.remove('two');
    expect(existsSync(join(baseDir, 'artifacts', 'two.json'))).toBe(false);
    await artifacts.clear();
    expect(artifacts.list()).toEqual([]);
  });

  it('throws ArtifactNotFoundError for an unknown id', async () => {
    const { artifacts } = store();
    await expect(artifacts.retrieve('nope')).rejects.toSatisfy(ArtifactNotFoundError.isInstance);
  });

  it('keeps file-backed artifacts in any run store', async () => {
    const runStore = createMemoryRunStore();
    const artifacts = createArtifactStore({ runStore, clock: createTestClock(), thresholdBytes: 10 });
    await artifacts.store({ id: 'big', data: 'a longer value' });
    await artifacts.store({ id: 'small', data: 1 });
    expect((await runStore.listArtifacts()).map((file) => file.name)).toEqual(['big']);
    expect(await artifacts.retrieve('big')).toBe('a longer value');
    await artifacts.store({ id: 'big', data: 2 });
    expect(await runStore.listArtifacts()).toEqual([]);
    expect(await artifacts.retrieve('big')).toBe(2);
  });

  it('rejects ids that could escape the directory', async () => {
    const { artifacts } = store();
    await expect(artifacts.store({ id: '../evil', data: 1 })).rejects.toThrow(/invalid/);
  });
});
