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
});
