import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileRunStore } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import {
  describeStageDirectory,
  describeStoredStageDirectory,
  readStageDirectoryFile,
  readStoredStageFile,
  readStoredStageListing,
} from './stage-directory-files.js';

describe('stage directories read through a RunStore', () => {
  it('lists and reads the same files, branches and visits as the run directory routes', async () => {
    const runDir = await mkdtemp(join(tmpdir(), 'attractor-stored-stage-'));
    const store = createFileRunStore({ logsRoot: runDir });
    await store.writeStageFile('review', 'prompt.md', 'first prompt');
    await store.prepareStage('review', 2);
    await store.writeStageFile('review', 'prompt.md', 'second prompt');
    await store.writeStageFile('review', 'notes.txt', 'not served');
    await store.writeStageFile('fan/branches/a/check', 'stdout.txt', 'ok\n');

    for (const dir of ['review', 'review/visits/1', 'fan/branches/a/check']) {
      expect(await describeStoredStageDirectory(store, dir)).toEqual(describeStageDirectory(runDir, dir));
    }
    expect(await describeStoredStageDirectory(store, 'review')).toEqual({
      dir: 'review',
      nodeId: 'review',
      branchPath: [],
      files: [{ name: 'prompt.md', bytes: 'second prompt'.length }],
      visits: [1],
    });
    expect(await readStoredStageFile(store, 'review/visits/1', 'prompt.md')).toBe(
      readStageDirectoryFile(runDir, 'review/visits/1', 'prompt.md'),
    );
    expect(await readStoredStageFile(store, 'fan/branches/a/check', 'stdout.txt')).toBe('ok\n');
    await expect(describeStoredStageDirectory(store, 'nowhere')).rejects.toMatchObject({ status: 404 });
    await expect(readStoredStageFile(store, 'review', 'stderr.txt')).rejects.toMatchObject({ status: 404 });
  });

  it("lists a run's stage directories (branches at any depth, visits) and top-level stage files, not its child runs", async () => {
    const runDir = await mkdtemp(join(tmpdir(), 'attractor-stored-listing-'));
    const store = createFileRunStore({ logsRoot: runDir });
    await store.writeStageFile('plan', 'prompt.md', 'p');
    await store.writeStageFile('plan', 'response.md', 'r!');
    await store.prepareStage('plan', 2);
    await store.writeStageFile('plan', 'prompt.md', 'again');
    await store.writeStageFile('fan', 'status.json', '{}');
    await store.writeStageFile('fan/branches/a/lint', 'stdout.txt', 'ok\n');
    await store.writeStageFile('fan/branches/a/inner/branches/x/deep', 'prompt.md', 'deep');
    await store.writeStageFile('checks', 'status.json', '{"outcome":"success"}');
    // A child run kept inside the stage: its stages are its own.
    await store.child('checks/child').writeStageFile('review', 'prompt.md', 'child prompt');
    const listing = await readStoredStageListing(store, ['plan', 'fan', 'checks', 'nowhere']);
    expect(listing.stages).toEqual([
      { nodeId: 'plan', files: ['prompt.md'] },
      { nodeId: 'fan', files: ['status.json'] },
      { nodeId: 'checks', files: ['status.json'] },
    ]);
    expect(listing.stageDirectories).toEqual([
      {
        dir: 'checks',
        nodeId: 'checks',
        branchPath: [],
        files: [{ name: 'status.json', bytes: 21 }],
        visits: [],
      },
      { dir: 'fan', nodeId: 'fan', branchPath: [], files: [{ name: 'status.json', bytes: 2 }], visits: [] },
      {
        dir: 'fan/branches/a/inner/branches/x/deep',
        nodeId: 'deep',
        branchPath: ['a', 'x'],
        files: [{ name: 'prompt.md', bytes: 4 }],
        visits: [],
      },
      {
        dir: 'fan/branches/a/lint',
        nodeId: 'lint',
        branchPath: ['a'],
        files: [{ name: 'stdout.txt', bytes: 3 }],
        visits: [],
      },
      { dir: 'plan', nodeId: 'plan', branchPath: [], files: [{ name: 'prompt.md', bytes: 5 }], visits: [1] },
    ]);
  });
});
