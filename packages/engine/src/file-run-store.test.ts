import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents, registryWith, run, tempDir } from '../test/helpers.js';
import { createFileRunStore } from './file-run-store.js';
import type { Checkpoint, RunManifest } from './run-store.js';
import { createTestGraph } from './test/graph-builder.js';
import { createTestCheckpoint } from './test/run-store-contract.js';
import { createScriptedHandler } from './test/scripted-handler.js';

/** Paths of this process's open file descriptors under `directory` (Linux: /proc/self/fd). */
function openFilesUnder(directory: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(join('/proc/self/fd', fd));
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(`${directory}/`) || target === directory);
}

const onLinux = process.platform === 'linux';

describe('file run store (spec §5.6, docs/architecture.md "Run directory")', () => {
  it('moves each earlier visit to visits/<n>/, and to visits/<n>-2/ when a resumed run reuses the number', () => {
    const logsRoot = tempDir();
    const store = createFileRunStore({ logsRoot });
    const stage = join(logsRoot, 'work');
    store.prepareStage('work', 1);
    store.writeStageStatus('work', { outcome: 'fail', notes: 'visit 1' });
    writeFileSync(join(stage, 'output.txt'), 'one');
    store.prepareStage('work', 2);
    expect(readdirSync(stage)).toEqual(['visits']);
    store.writeStageStatus('work', { outcome: 'fail', notes: 'visit 2' });
    // A crash before visit 2 was recorded: the resumed run starts visit 2 again.
    store.prepareStage('work', 2);
    store.writeStageStatus('work', { outcome: 'success', notes: 'visit 2 again' });
    store.close();
    const notes = (path: string) => JSON.parse(readFileSync(join(stage, path), 'utf8')).notes;
    expect(readdirSync(join(stage, 'visits')).sort()).toEqual(['1', '1-2']);
    expect(readdirSync(join(stage, 'visits', '1')).sort()).toEqual(['output.txt', 'status.json']);
    expect(notes('visits/1/status.json')).toBe('visit 1');
    expect(notes('visits/1-2/status.json')).toBe('visit 2');
    expect(notes('status.json')).toBe('visit 2 again');
  });

  it('creates nested stage directories and leaves an empty one of an earlier visit in place', () => {
    const logsRoot = tempDir();
    const store = createFileRunStore({ logsRoot });
    const directory = join(logsRoot, 'fan/branches/b1/b1');
    store.prepareStage('fan/branches/b1/b1', 1);
    expect(readdirSync(directory)).toEqual([]);
    store.prepareStage('fan/branches/b1/b1', 2);
    expect(readdirSync(directory)).toEqual([]);
    // A visit > 1 of a directory that does not exist (its node never wrote anything) creates it.
    store.prepareStage('never', 3);
    expect(readdirSync(join(logsRoot, 'never'))).toEqual([]);
    store.close();
  });

  it('lists the stages of parallel branches and of foreach items, not a foreach item result file', async () => {
    const logsRoot = tempDir();
    const store = createFileRunStore({ logsRoot });
    for (const stage of ['fan', 'fan/branches/b1/lint', 'each', 'each/items/0/check', 'each/items/1/check']) {
      store.prepareStage(stage, 1);
      store.writeStageStatus(stage, { outcome: 'success' });
    }
    await store.writeStageFile('each', 'items/0/result.json', '{}');
    expect(await store.listStages()).toEqual([
      'each',
      'each/items/0/check',
      'each/items/1/check',
      'fan',
      'fan/branches/b1/lint',
    ]);
    store.close();
  });

  it('keeps stage files, artifacts and child runs in the spec §5.6 layout', async () => {
    const logsRoot = tempDir();
    const store = createFileRunStore({ logsRoot });
    store.prepareStage('plan', 1);
    await store.writeStageFile('plan', 'prompt.md', 'p');
    await store.appendStageFile('plan', 'logs/stdout.txt', 'a');
    await store.appendStageFile('plan', 'logs/stdout.txt', 'b');
    await store.writeArtifact('report', '{"a":1}');
    const child = store.child('manage/child');
    child.writeManifest({
      version: 1,
      run_id: 'child',
      graph_name: 'g',
      goal: '',
      source_sha256: 'a'.repeat(64),
      started_at: '2026-01-01T00:00:00.000Z',
      engine_version: '0.0.0',
      workdir: '/tmp',
    });
    child.prepareStage('step', 1);
    await child.writeStageFile('step', 'out.txt', 'o');
    expect(readFileSync(join(logsRoot, 'plan', 'prompt.md'), 'utf8')).toBe('p');
    expect(readFileSync(join(logsRoot, 'plan', 'logs', 'stdout.txt'), 'utf8')).toBe('ab');
    expect(readFileSync(join(logsRoot, 'artifacts', 'report.json'), 'utf8')).toBe('{"a":1}');
    expect(child.logsRoot).toBe(join(logsRoot, 'manage/child'));
    expect(readFileSync(join(logsRoot, 'manage', 'child', 'step', 'out.txt'), 'utf8')).toBe('o');
    expect((await store.localStageDirectory('plan')).path).toBe(join(logsRoot, 'plan'));
    // The child run is part of the manage stage's files, not a stage of the parent.
    expect(await store.listStages()).toEqual(['plan']);
    store.close();
    child.close();
  });

  it.skipIf(!onLinux)('holds no file of the run directory open after close()', async () => {
    const logsRoot = tempDir();
    const store = createFileRunStore({ logsRoot });
    store.writeCheckpoint(createTestCheckpoint({ step_count: 1 }));
    store.appendEvents([
      {
        type: 'stage.log',
        level: 'info',
        message: 'm',
        nodeId: 'a',
        seq: 1,
        timestamp: '2026-01-01T00:00:00.000Z',
        runId: 'r',
      },
    ]);
    store.writeCheckpoint(createTestCheckpoint({ step_count: 2 }));
    expect(openFilesUnder(logsRoot).length).toBeGreaterThan(0);
    store.close();
    expect(openFilesUnder(logsRoot)).toEqual([]);
    expect(readdirSync(logsRoot).sort()).toEqual(['checkpoint.json', 'checkpoints.jsonl', 'events.jsonl']);
    expect((await store.readCheckpoint())?.step_count).toBe(2);
  });

  it('never reads or lists through a symbolic link leading out of the run directory, nor a FIFO', async () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.md'), 'outside');
    mkdirSync(join(outside, 'stage'));
    writeFileSync(join(outside, 'stage', 'response.md'), 'outside stage');
    const logsRoot = tempDir();
    const store = createFileRunStore({ logsRoot });
    await store.writeStageFile('plan', 'prompt.md', 'inside');
    symlinkSync(join(outside, 'secret.md'), join(logsRoot, 'plan', 'response.md'));
    symlinkSync(join(outside, 'stage'), join(logsRoot, 'plan', 'visits'));
    symlinkSync(join(outside, 'stage'), join(logsRoot, 'evil'));
    // A link that stays inside the run directory is followed.
    symlinkSync(join(logsRoot, 'plan', 'prompt.md'), join(logsRoot, 'plan', 'copy.md'));

    expect(await store.readStageFile('plan', 'response.md')).toBeUndefined();
    expect(await store.openStageFile('plan', 'response.md')).toBeUndefined();
    expect(await store.readStageFile('plan', 'visits/response.md')).toBeUndefined();
    expect(await store.readStageFile('evil', 'response.md')).toBeUndefined();
    expect(await store.listStageFiles('evil')).toEqual([]);
    expect((await store.listStageFiles('plan')).map((file) => file.name)).toEqual(['prompt.md']);
    expect(Buffer.from((await store.readStageFile('plan', 'copy.md'))!).toString()).toBe('inside');

    if (onLinux) {
      execFileSync('mkfifo', [join(logsRoot, 'plan', 'stdout.txt')]);
      expect(await store.readStageFile('plan', 'stdout.txt')).toBeUndefined();
      expect(await store.openStageFile('plan', 'stdout.txt')).toBeUndefined();
    }
    store.close();
  });

  it("reads the run's own files, and a child store's directory, only inside the run directory (issue 34 §13)", async () => {
    // A complete run outside, whose files the links below lead to.
    const outside = tempDir();
    const elsewhere = createFileRunStore({ logsRoot: outside });
    elsewhere.writeManifest({ ...manifestOf('outside'), goal: 'stolen' });
    elsewhere.writeCheckpoint(createTestCheckpoint({ step_count: 7 }));
    elsewhere.appendEvents([
      {
        type: 'stage.log',
        level: 'info',
        message: 'stolen',
        nodeId: 'plan',
        seq: 1,
        timestamp: 'x',
        runId: 'o',
      },
    ]);
    await elsewhere.child('plan/child').writeStageFile('review', 'response.md', 'stolen');
    elsewhere.child('plan/child').writeManifest(manifestOf('child'));
    elsewhere.close();

    const logsRoot = tempDir();
    for (const name of ['manifest.json', 'checkpoint.json', 'events.jsonl', 'checkpoints.jsonl'])
      symlinkSync(join(outside, name), join(logsRoot, name));
    // A stage directory that is a link: the child run inside it is outside the run directory.
    symlinkSync(join(outside, 'plan'), join(logsRoot, 'plan'));
    const store = createFileRunStore({ logsRoot, createDirectory: false });
    expect(await store.readManifest()).toBeUndefined();
    expect(await store.readCheckpoint()).toBeUndefined();
    expect(await store.readEvents()).toEqual([]);
    expect(await store.readCheckpointHistory()).toEqual([]);
    const child = store.child('plan/child');
    expect(await child.readManifest()).toBeUndefined();
    expect(await child.readStageFile('review', 'response.md')).toBeUndefined();
    expect(await child.listStageFiles('review')).toEqual([]);

    // The same files reached without a link are read.
    const direct = createFileRunStore({ logsRoot: outside, createDirectory: false });
    expect((await direct.readManifest())?.goal).toBe('stolen');
    expect(await direct.child('plan/child').readManifest()).toBeDefined();

    if (onLinux) {
      // A FIFO under the checkpoint's or the event log's name reads as missing instead of blocking.
      const fifoRoot = tempDir();
      execFileSync('mkfifo', [join(fifoRoot, 'checkpoint.json'), join(fifoRoot, 'events.jsonl')]);
      const fifoStore = createFileRunStore({ logsRoot: fifoRoot, createDirectory: false });
      expect(await fifoStore.readCheckpoint()).toBeUndefined();
      expect(await fifoStore.readEvents()).toEqual([]);
    }
  });
});

/** A minimal manifest for the tests. */
function manifestOf(name: string): RunManifest {
  return {
    version: 1,
    run_id: name,
    graph_name: name,
    goal: '',
    source_sha256: '0'.repeat(64),
    started_at: '2026-01-01T00:00:00.000Z',
    engine_version: '0.0.0',
    workdir: '/',
  };
}

describe('file run store checkpoint history (checkpoints.jsonl)', () => {
  it('cuts off a line torn by a crash when a resume opens the history, and reads back every checkpoint', async () => {
    const logsRoot = tempDir();
    const checkpointAt = (step: number) =>
      createTestCheckpoint({
        step_count: step,
        current_node: `n${step}`,
        completed_nodes: Array.from({ length: step }, (_, index) => `n${index + 1}`),
      });
    const first = createFileRunStore({ logsRoot });
    for (const step of [1, 2, 3]) first.writeCheckpoint(checkpointAt(step));
    first.close();
    // The process was killed in the middle of appending the fourth line.
    const history = join(logsRoot, 'checkpoints.jsonl');
    writeFileSync(history, `${readFileSync(history, 'utf8')}{"version":2,"timestamp":"2026-01-`);
    const resumed = createFileRunStore({ logsRoot });
    for (const step of [4, 5]) resumed.writeCheckpoint(checkpointAt(step));
    resumed.close();
    const text = readFileSync(history, 'utf8');
    // The torn line was cut off when the resume opened the file (issue 34 §15): only whole lines are left.
    expect(text).not.toContain('"2026-01-{');
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    // The resume's first line is whole, the next one a delta.
    expect(JSON.parse(lines[3]!).completed_nodes).toEqual(['n1', 'n2', 'n3', 'n4']);
    expect(JSON.parse(lines[4]!).window_delta.completed_nodes).toEqual([4, ['n5']]);
    const read = await createFileRunStore({ logsRoot }).readCheckpointHistory();
    expect(read.map((checkpoint) => [checkpoint.step_count, checkpoint.completed_nodes.at(-1)])).toEqual([
      [1, 'n1'],
      [2, 'n2'],
      [3, 'n3'],
      [4, 'n4'],
      [5, 'n5'],
    ]);
    expect(read[4]!.completed_nodes).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
  });
});

describe('file run store in a run', () => {
  it('keeps checkpoint.json complete at every checkpoint, closes its files and leaves no spare behind', async () => {
    const steps: number[] = [];
    let logsRoot = '';
    const graph = createTestGraph({ edges: ['start -> a -> b -> c -> exit'] });
    const { result, events } = await run({
      graph,
      registry: registryWith(createScriptedHandler()),
      logsRoot: join(tempDir(), 'run'),
      onEvent: (event) => {
        if (event.type === 'pipeline.started') logsRoot = event.logsRoot;
        if (event.type !== 'checkpoint.saved') return;
        const checkpoint = JSON.parse(readFileSync(join(logsRoot, 'checkpoint.json'), 'utf8')) as Checkpoint;
        steps.push(checkpoint.step_count);
      },
    });
    expect(result.status).toBe('success');
    expect(steps).toEqual([1, 2, 3, 4, 5]);
    expect(readdirSync(logsRoot).filter((name) => name.startsWith('.'))).toEqual([]);
    if (onLinux) expect(openFilesUnder(logsRoot)).toEqual([]);
    expect(readEvents(logsRoot)).toEqual(events);
  });
});
