import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileRunStore, type RunStore } from '@attractor/engine';
import { createMemoryRunStore } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import {
  describeStoredStageDirectory,
  readStoredNodeFile,
  readStoredStageFile,
  readStoredStageListing,
} from './stage-directory-files.js';

/** The same run written to a store: a stage with two visits, a parallel branch stage, a file the API does not serve. */
async function writeRun(store: RunStore): Promise<void> {
  await store.writeStageFile('review', 'prompt.md', 'first prompt');
  await store.prepareStage('review', 2);
  await store.writeStageFile('review', 'prompt.md', 'second prompt');
  await store.writeStageFile('review', 'notes.txt', 'not served');
  await store.writeStageFile('fan', 'status.json', '{"outcome":"success"}');
  await store.writeStageFile('fan/branches/a/check', 'stdout.txt', 'ok\n');
  await store.writeStageFile('fan/branches/a/check', 'stderr.txt', '');
  await store.writeStageFile('other', 'notes.txt', 'nothing served');
}

const stores: [string, () => Promise<RunStore>][] = [
  ['the file store on a run directory', async () => createFileRunStore({ logsRoot: await runDirectory() })],
  ['the memory store (as a shared store)', async () => createMemoryRunStore()],
];

async function runDirectory(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'attractor-stored-stage-'));
}

describe.each(stores)('stage directories read through %s', (_name, createStore) => {
  it('lists stages, branch stages and visits, and reads their served files', async () => {
    const store = await createStore();
    await writeRun(store);

    const review = {
      dir: 'review',
      nodeId: 'review',
      branchPath: [],
      files: [{ name: 'prompt.md', bytes: 'second prompt'.length }],
      visits: [1],
    };
    const check = {
      dir: 'fan/branches/a/check',
      nodeId: 'check',
      branchPath: ['a'],
      files: [
        { name: 'stdout.txt', bytes: 3 },
        { name: 'stderr.txt', bytes: 0 },
      ],
      visits: [],
    };
    expect(await describeStoredStageDirectory(store, 'review')).toEqual(review);
    expect(await describeStoredStageDirectory(store, 'review/visits/1')).toEqual({
      ...review,
      dir: 'review/visits/1',
      files: [{ name: 'prompt.md', bytes: 'first prompt'.length }],
      visits: [],
    });
    expect(await describeStoredStageDirectory(store, 'fan/branches/a/check')).toEqual(check);

    expect(await readStoredStageListing(store, ['start', 'review', 'fan', 'other', 'check'])).toEqual({
      stages: [
        { nodeId: 'review', files: ['prompt.md'] },
        { nodeId: 'fan', files: ['status.json'] },
      ],
      stageDirectories: [
        {
          dir: 'fan',
          nodeId: 'fan',
          branchPath: [],
          files: [{ name: 'status.json', bytes: 21 }],
          visits: [],
        },
        check,
        review,
      ],
    });

    expect(await readStoredStageFile(store, 'review/visits/1', 'prompt.md')).toBe('first prompt');
    expect(await readStoredStageFile(store, 'fan/branches/a/check', 'stdout.txt')).toBe('ok\n');
    expect(await readStoredNodeFile(store, 'review', 'prompt.md')).toBe('second prompt');
  });

  it('answers 404 NOT_FOUND for missing stages and files, names it does not serve and non-node ids', async () => {
    const store = await createStore();
    await writeRun(store);
    const notFound = { status: 404, code: 'NOT_FOUND' };
    await expect(describeStoredStageDirectory(store, 'nowhere')).rejects.toMatchObject(notFound);
    await expect(describeStoredStageDirectory(store, 'other')).rejects.toMatchObject(notFound);
    await expect(readStoredStageFile(store, 'review', 'stderr.txt')).rejects.toMatchObject(notFound);
    for (const [node, file] of [
      ['review', 'notes.txt'],
      ['review', 'response.md'],
      ['..', 'prompt.md'],
      ['review/../..', 'secret.md'],
      ['fan/branches/a/check', 'stdout.txt'],
    ] as const) {
      await expect(readStoredNodeFile(store, node, file), `${node}/${file}`).rejects.toMatchObject(notFound);
    }
  });

  it('describes each stage directory the listing lists as the listing does, a visit kept only in a branch too', async () => {
    const store = await createStore();
    await writeRun(store);
    // The first visit of `fan2` wrote only a branch stage's file: it moves to `fan2/visits/1/branches/b/lint/`.
    await store.writeStageFile('fan2/branches/b/lint', 'stdout.txt', 'first\n');
    await store.prepareStage('fan2', 2);
    await store.writeStageFile('fan2/branches/b/lint', 'stdout.txt', 'second\n');
    const { stageDirectories } = await readStoredStageListing(store, []);
    expect(stageDirectories.map((directory) => [directory.dir, directory.visits])).toEqual([
      ['fan', []],
      ['fan/branches/a/check', []],
      ['fan2', [1]],
      ['fan2/branches/b/lint', []],
      ['review', [1]],
    ]);
    for (const directory of stageDirectories)
      expect(await describeStoredStageDirectory(store, directory.dir)).toEqual(directory);
  });
});

describe('stage files of a local run directory', () => {
  it('are never served through a symbolic link leading out of the run directory', async () => {
    const runsDir = await runDirectory();
    const runDir = join(runsDir, 'run-1');
    const store = createFileRunStore({ logsRoot: runDir });
    await writeRun(store);
    await writeFile(join(runsDir, 'secret.md'), 'secret');
    await mkdir(join(runsDir, 'elsewhere'));
    await writeFile(join(runsDir, 'elsewhere', 'response.md'), 'secret');
    await symlink(join(runsDir, 'secret.md'), join(runDir, 'review', 'response.md'));
    await symlink(join(runsDir, 'elsewhere'), join(runDir, 'evil'));

    await expect(readStoredNodeFile(store, 'review', 'response.md')).rejects.toMatchObject({ status: 404 });
    await expect(readStoredStageFile(store, 'review', 'response.md')).rejects.toMatchObject({ status: 404 });
    await expect(readStoredNodeFile(store, 'evil', 'response.md')).rejects.toMatchObject({ status: 404 });
    await expect(describeStoredStageDirectory(store, 'evil')).rejects.toMatchObject({ status: 404 });
    expect((await describeStoredStageDirectory(store, 'review')).files.map((file) => file.name)).toEqual([
      'prompt.md',
    ]);
    expect((await readStoredStageListing(store, ['evil'])).stages).toEqual([]);
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
