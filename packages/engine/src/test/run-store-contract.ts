/**
 * The conformance kit for {@link RunStore} implementations (CONTRIBUTING.md "Writing tests"): the file store,
 * the in-memory store and the PostgreSQL store all pass it. Call {@link describeRunStoreContract} from a
 * Vitest test file.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PipelineEvent } from '../pipeline-event.js';
import {
  CHECKPOINT_VERSION,
  type Checkpoint,
  type RunManifest,
  type RunStore,
  readRun,
} from '../run-store.js';

/** A minimal valid checkpoint for store tests. */
export function createTestCheckpoint(overrides: Partial<Checkpoint> = {}): Checkpoint {
  return {
    version: CHECKPOINT_VERSION,
    timestamp: '2026-01-01T00:00:00.000Z',
    run_id: 'run',
    graph_sha256: 'a'.repeat(64),
    state: 'running',
    current_node: 'start',
    next_node: 'a',
    next_edge_index: 0,
    completed_nodes: ['start'],
    step_count: 1,
    node_retries: {},
    visited_nodes: '0',
    node_visits: { start: 1 },
    node_outcomes: { start: { status: 'success' } },
    gate_retries: 0,
    fallbacks_taken: [],
    failure_streaks: {},
    last_fidelity: 'compact',
    recent_stages: [{ node: 'start', status: 'success' }],
    context: { outcome: 'success' },
    logs: [],
    last_seq: 3,
    ...overrides,
  };
}

/** A minimal valid manifest for store tests. */
export function createTestManifest(overrides: Partial<RunManifest> = {}): RunManifest {
  return {
    version: 1,
    run_id: 'run',
    graph_name: 'g',
    goal: 'the goal',
    source_sha256: 'a'.repeat(64),
    started_at: '2026-01-01T00:00:00.000Z',
    engine_version: '0.0.0',
    workdir: '/tmp',
    ...overrides,
  };
}

function event(seq: number): PipelineEvent {
  return {
    type: 'stage.log',
    level: 'info',
    message: `m${seq}`,
    nodeId: 'a',
    seq,
    timestamp: '2026-01-01T00:00:00.000Z',
    runId: 'run',
  };
}

/** What the factory given to {@link describeRunStoreContract} returns: a fresh, empty run. */
export interface RunStoreFixture {
  readonly store: RunStore;
  /** Removes what the store left behind (temp directories, database rows). Called after each test. */
  cleanup?(): Promise<void>;
  /**
   * Makes the run lock's current holder look dead, as if its process was killed with `kill -9` (file store: the
   * holder record names a pid that no longer exists). Without it, the stale-takeover test is skipped.
   */
  killLockHolder?(): Promise<void>;
}

/** A pid that existed a moment ago and exists no more (a real child process that exited). */
export function deadProcessId(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('could not start a process to get a dead pid');
  return child.pid;
}

const text = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** 5 MiB of non-repeating bytes, streamed in 64 KiB chunks of varying content. */
async function* largeBlob(): AsyncGenerator<Uint8Array> {
  for (let chunk = 0; chunk < 80; chunk++) {
    const bytes = Buffer.alloc(65_536);
    for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 31 + chunk * 7) & 0xff;
    yield bytes;
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Registers Vitest tests that every {@link RunStore} must pass: manifest and checkpoint round trips and history,
 * malformed-checkpoint refusal, events (order, `afterSeq`), stage status, stage files (text, bytes, a 5 MiB
 * stream, append, nested names, visits moved on a later visit, name checks), `listStages`, artifacts, child
 * stores, `localStageDirectory` with a real child process writing into it, the run lock (exclusivity, holder
 * record, stale takeover) and `readRun`.
 *
 * @example
 * describeRunStoreContract('file store', async () => {
 *   const logsRoot = mkdtempSync(join(tmpdir(), 'run-'));
 *   return { store: createFileRunStore({ logsRoot }), cleanup: async () => rmSync(logsRoot, { recursive: true }) };
 * });
 */
export function describeRunStoreContract(
  name: string,
  createStore: () => RunStoreFixture | Promise<RunStoreFixture>,
): void {
  describe(`RunStore contract: ${name}`, () => {
    const opened: RunStoreFixture[] = [];
    const open = async (): Promise<RunStoreFixture> => {
      const fixture = await createStore();
      opened.push(fixture);
      return fixture;
    };
    const fresh = async (): Promise<RunStore> => (await open()).store;
    afterEach(async () => {
      for (const fixture of opened.splice(0)) {
        await fixture.store.close();
        await fixture.cleanup?.();
      }
    });

    it('returns nothing before anything was written', async () => {
      const store = await fresh();
      expect(await store.readCheckpoint()).toBeUndefined();
      expect(await store.readManifest()).toBeUndefined();
      expect(await store.readCheckpointHistory()).toEqual([]);
      expect(await store.readEvents()).toEqual([]);
      expect(await store.readLastEventSeq()).toBe(0);
      expect(await store.readLock()).toBeUndefined();
      expect(await store.listStages()).toEqual([]);
      expect(await store.listStageFiles('a')).toEqual([]);
      expect(await store.readStageFile('a', 'prompt.md')).toBeUndefined();
      expect(await store.openStageFile('a', 'prompt.md')).toBeUndefined();
      expect(await store.readStageStatus('a')).toBeUndefined();
      expect(await store.listArtifacts()).toEqual([]);
      expect(await store.readArtifact('report')).toBeUndefined();
      expect(typeof store.logsRoot).toBe('string');
    });

    it('round-trips the manifest and the latest checkpoint', async () => {
      const store = await fresh();
      const manifest = createTestManifest({ node_ids: ['start', 'a'], initial_context: { k: [1, 'two'] } });
      await store.writeManifest(manifest);
      await store.writeCheckpoint(createTestCheckpoint({ step_count: 1 }));
      await store.writeCheckpoint(createTestCheckpoint({ step_count: 2, context: { nested: { x: null } } }));
      expect(await store.readManifest()).toEqual(manifest);
      const checkpoint = await store.readCheckpoint();
      expect(checkpoint).toEqual(createTestCheckpoint({ step_count: 2, context: { nested: { x: null } } }));
    });

    it('keeps every checkpoint as history, oldest first', async () => {
      const store = await fresh();
      for (const step of [1, 2, 3]) await store.writeCheckpoint(createTestCheckpoint({ step_count: step }));
      expect((await store.readCheckpointHistory()).map((checkpoint) => checkpoint.step_count)).toEqual([
        1, 2, 3,
      ]);
    });

    it('refuses a checkpoint that does not match the schema, naming the field', async () => {
      const store = await fresh();
      await store.writeCheckpoint({ ...createTestCheckpoint(), context: 'xyz' } as never);
      await expect(store.readCheckpoint()).rejects.toThrow(/field "context"/);
      await expect(store.readCheckpoint()).rejects.toMatchObject({ code: 'CHECKPOINT_CORRUPT' });
      await expect(store.readCheckpointHistory()).rejects.toThrow(/field "context"/);
      const other = await fresh();
      await other.writeCheckpoint({ ...createTestCheckpoint(), node_outcomes: null } as never);
      await expect(other.readCheckpoint()).rejects.toThrow(/field "node_outcomes"/);
    });

    it('appends events in order across calls and reads them from a sequence number', async () => {
      const store = await fresh();
      await store.appendEvents([event(1), event(2)]);
      await store.appendEvents([]);
      await store.appendEvents([event(3)]);
      expect(await store.readLastEventSeq()).toBe(3);
      expect((await store.readEvents()).map((item) => item.seq)).toEqual([1, 2, 3]);
      expect(await store.readEvents({ afterSeq: 1 })).toEqual([event(2), event(3)]);
      expect(await store.readEvents({ afterSeq: 3 })).toEqual([]);
    });

    it('writes and reads stage status files', async () => {
      const store = await fresh();
      await store.prepareStage('a', 1);
      await store.writeStageStatus('a', { outcome: 'fail', failure_reason: 'x', context_updates: { k: 1 } });
      expect(await store.readStageStatus('a')).toEqual({
        outcome: 'fail',
        failure_reason: 'x',
        context_updates: { k: 1 },
      });
      expect(await store.readStageStatus('never')).toBeUndefined();
    });

    it('round-trips stage files as text and bytes, replacing on rewrite, with nested names', async () => {
      const store = await fresh();
      await store.prepareStage('plan', 1);
      await store.writeStageFile('plan', 'prompt.md', 'héllo');
      const binary = Uint8Array.from([0, 255, 10, 13, 0x80, 1]);
      await store.writeStageFile('plan', 'logs/raw.bin', binary);
      await store.writeStageFile('plan', 'response.md', 'first');
      await store.writeStageFile('plan', 'response.md', 'second');
      expect(text(await store.readStageFile('plan', 'prompt.md'))).toBe('héllo');
      expect(Buffer.from((await store.readStageFile('plan', 'logs/raw.bin'))!)).toEqual(Buffer.from(binary));
      expect(text(await store.readStageFile('plan', 'response.md'))).toBe('second');
      const listed = await store.listStageFiles('plan');
      expect(listed.map((file) => [file.name, file.sizeBytes])).toEqual([
        ['logs/raw.bin', 6],
        ['prompt.md', 6],
        ['response.md', 6],
      ]);
      for (const file of listed) expect(Number.isNaN(Date.parse(file.modifiedAt))).toBe(false);
      expect(await store.readStageFile('plan', 'logs')).toBeUndefined();
      expect(await store.readStageFile('other', 'prompt.md')).toBeUndefined();
    });

    it('writes a 5 MiB stream and reads it back whole and as a stream', async () => {
      const store = await fresh();
      await store.writeStageFile('big', 'out.bin', largeBlob());
      const expected = await collect(largeBlob());
      const whole = await store.readStageFile('big', 'out.bin');
      expect(whole?.byteLength).toBe(5 * 1024 * 1024);
      expect(sha256(whole!)).toBe(sha256(expected));
      const stream = await store.openStageFile('big', 'out.bin');
      expect(stream).toBeDefined();
      expect(sha256(await collect(stream!))).toBe(sha256(expected));
      expect((await store.listStageFiles('big')).map((file) => file.sizeBytes)).toEqual([5 * 1024 * 1024]);
    });

    it('appends to stage files, creating them when missing', async () => {
      const store = await fresh();
      await store.appendStageFile('tool', 'stdout.txt', 'one\n');
      await store.appendStageFile('tool', 'stdout.txt', Buffer.from('two\n'));
      await store.appendStageFile('tool', 'stdout.txt', 'three');
      expect(text(await store.readStageFile('tool', 'stdout.txt'))).toBe('one\ntwo\nthree');
      await store.appendStageFile('tool', 'nested/stderr.txt', 'e');
      expect(text(await store.readStageFile('tool', 'nested/stderr.txt'))).toBe('e');
    });

    it('removes stage files, and reads a nested stage’s files through its parent', async () => {
      const store = await fresh();
      await store.writeStageFile('a', 'status.json', '{"outcome":"fail"}');
      await store.writeStageFile('a', 'keep.txt', 'k');
      expect(await store.readStageStatus('a')).toEqual({ outcome: 'fail' });
      await store.removeStageFile('a', 'status.json');
      await store.removeStageFile('a', 'never.txt');
      expect(await store.readStageStatus('a')).toBeUndefined();
      expect((await store.listStageFiles('a')).map((file) => file.name)).toEqual(['keep.txt']);
      await store.writeStageFile('fan/branches/b1/lint', 'response.md', 'branch output');
      expect(text(await store.readStageFile('fan', 'branches/b1/lint/response.md'))).toBe('branch output');
    });

    it('refuses names that would leave the stage or the run', async () => {
      const store = await fresh();
      for (const bad of ['../escape.txt', '/abs.txt', 'a//b', './a', 'a/../b', '', 'a\\b']) {
        await expect(store.writeStageFile('plan', bad, 'x')).rejects.toMatchObject({
          code: 'INVALID_STORE_NAME',
        });
      }
      for (const bad of ['../up', '/abs', '']) {
        await expect(store.writeStageFile(bad, 'a.txt', 'x')).rejects.toMatchObject({
          code: 'INVALID_STORE_NAME',
        });
      }
      for (const bad of ['a/b', '..', 'a b', '']) {
        await expect(store.writeArtifact(bad, 'x')).rejects.toMatchObject({ code: 'INVALID_STORE_NAME' });
      }
      expect(() => store.child('../sibling')).toThrow(/invalid/);
    });

    it('moves an earlier visit’s files to visits/<n>/ (then <n>-2/) and starts the later visit empty', async () => {
      const store = await fresh();
      await store.prepareStage('work', 1);
      await store.writeStageFile('work', 'output.txt', 'one');
      await store.writeStageStatus('work', { outcome: 'fail', notes: 'visit 1' });
      await store.prepareStage('work', 2);
      expect(await store.readStageStatus('work')).toBeUndefined();
      expect(await store.readStageFile('work', 'output.txt')).toBeUndefined();
      expect(text(await store.readStageFile('work', 'visits/1/output.txt'))).toBe('one');
      await store.writeStageStatus('work', { outcome: 'fail', notes: 'visit 2' });
      // A crash before visit 2 was recorded: the resumed run starts visit 2 again.
      await store.prepareStage('work', 2);
      await store.writeStageStatus('work', { outcome: 'success', notes: 'visit 2 again' });
      const names = (await store.listStageFiles('work')).map((file) => file.name);
      expect(names).toEqual([
        'status.json',
        'visits/1-2/status.json',
        'visits/1/output.txt',
        'visits/1/status.json',
      ]);
      expect(JSON.parse(text(await store.readStageFile('work', 'visits/1-2/status.json'))!).notes).toBe(
        'visit 2',
      );
      expect((await store.readStageStatus('work'))?.notes).toBe('visit 2 again');
      // A later visit of a stage that never wrote anything is simply empty.
      await store.prepareStage('never', 3);
      expect(await store.listStageFiles('never')).toEqual([]);
    });

    it('lists the stages that have files or a status, nested ones included, sorted', async () => {
      const store = await fresh();
      await store.prepareStage('plan', 1);
      await store.writeStageFile('plan', 'prompt.md', 'p');
      await store.prepareStage('fan', 1);
      await store.writeStageStatus('fan', { outcome: 'success' });
      await store.prepareStage('fan/branches/b1/lint', 1);
      await store.writeStageStatus('fan/branches/b1/lint', { outcome: 'success' });
      await store.prepareStage('empty', 1);
      await store.writeArtifact('report', '{}');
      expect(await store.listStages()).toEqual(['fan', 'fan/branches/b1/lint', 'plan']);
      // A parent stage lists the files of the stages nested in it.
      expect((await store.listStageFiles('fan')).map((file) => file.name)).toContain(
        'branches/b1/lint/status.json',
      );
    });

    it('stores, lists, replaces and removes artifacts', async () => {
      const store = await fresh();
      await store.writeArtifact('report', '{"a":1}');
      await store.writeArtifact('big.data', largeBlob());
      await store.writeArtifact('report', '{"a":2}');
      expect(text(await store.readArtifact('report'))).toBe('{"a":2}');
      expect((await store.readArtifact('big.data'))?.byteLength).toBe(5 * 1024 * 1024);
      expect((await store.listArtifacts()).map((file) => [file.name, file.sizeBytes])).toEqual([
        ['big.data', 5 * 1024 * 1024],
        ['report', 7],
      ]);
      await store.removeArtifact('big.data');
      await store.removeArtifact('never');
      expect((await store.listArtifacts()).map((file) => file.name)).toEqual(['report']);
      expect(await store.readArtifact('big.data')).toBeUndefined();
      expect(await store.listStages()).toEqual([]);
    });

    it('keeps child runs apart from the parent and gives the same child for the same path', async () => {
      const store = await fresh();
      await store.writeManifest(createTestManifest({ run_id: 'parent' }));
      const child = store.child('review/child');
      expect(child.logsRoot).not.toBe(store.logsRoot);
      await child.writeManifest(createTestManifest({ run_id: 'child' }));
      await child.writeCheckpoint(createTestCheckpoint({ run_id: 'child', step_count: 4 }));
      await child.appendEvents([event(1)]);
      await child.prepareStage('step', 1);
      await child.writeStageFile('step', 'out.txt', 'child output');
      await child.writeStageStatus('step', { outcome: 'success' });
      expect((await store.readManifest())?.run_id).toBe('parent');
      expect(await store.readCheckpoint()).toBeUndefined();
      expect(await store.readEvents()).toEqual([]);
      const again = store.child('review/child');
      expect((await again.readManifest())?.run_id).toBe('child');
      expect((await again.readCheckpoint())?.step_count).toBe(4);
      expect(text(await again.readStageFile('step', 'out.txt'))).toBe('child output');
      expect(await again.listStages()).toEqual(['step']);
      expect(await store.listStages()).not.toContain('step');
      expect(await store.listStages()).not.toContain('review/child');
      await child.close();
    });

    it('hands out a real directory for a stage, holding its files, and stores what a program wrote there', async () => {
      const store = await fresh();
      await store.prepareStage('tool', 1);
      await store.writeStageFile('tool', 'input.txt', 'from the store');
      const local = await store.localStageDirectory('tool');
      expect(readFileSync(join(local.path, 'input.txt'), 'utf8')).toBe('from the store');
      const program = [
        "const fs = require('node:fs'), path = require('node:path');",
        'const dir = process.argv[1];',
        "fs.writeFileSync(path.join(dir, 'result.txt'), 'written by a child process');",
        "fs.mkdirSync(path.join(dir, 'deep'), { recursive: true });",
        "fs.writeFileSync(path.join(dir, 'deep', 'x.txt'), 'x');",
        "fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ outcome: 'partial_success', notes: 'tool' }));",
      ].join('\n');
      const child = spawnSync(process.execPath, ['-e', program, local.path]);
      expect(child.status).toBe(0);
      await local.sync();
      expect(text(await store.readStageFile('tool', 'result.txt'))).toBe('written by a child process');
      expect(text(await store.readStageFile('tool', 'deep/x.txt'))).toBe('x');
      expect(text(await store.readStageFile('tool', 'input.txt'))).toBe('from the store');
      expect(await store.readStageStatus('tool')).toEqual({ outcome: 'partial_success', notes: 'tool' });
      expect(await store.listStages()).toEqual(['tool']);
      // A file removed from the store is not copied back from an unchanged copy in the directory.
      await store.removeStageFile('tool', 'status.json');
      await local.sync();
      expect(await store.readStageStatus('tool')).toBeUndefined();
      // A later visit's directory holds only that visit's files.
      await store.prepareStage('tool', 2);
      const second = await store.localStageDirectory('tool');
      const again = spawnSync(process.execPath, ['-e', program, second.path]);
      expect(again.status).toBe(0);
      await second.sync();
      expect(text(await store.readStageFile('tool', 'visits/1/result.txt'))).toBe(
        'written by a child process',
      );
      expect((await store.listStageFiles('tool')).map((file) => file.name)).toContain('visits/1/input.txt');
    });

    it('lets one holder take the run lock, records it, and refuses a second until released', async () => {
      const store = await fresh();
      const since = '2026-01-01T00:00:00.000Z';
      const lock = await store.acquireLock({ since });
      expect(lock.holder).toMatchObject({ pid: process.pid, since });
      expect(await store.readLock()).toMatchObject({ pid: process.pid, since });
      await expect(store.acquireLock({ since })).rejects.toMatchObject({ code: 'RUN_LOCKED' });
      await expect(store.acquireLock({ since })).rejects.toThrow(String(process.pid));
      await lock.setProcessGroups([4242]);
      expect((await store.readLock())?.process_groups).toEqual([4242]);
      await lock.release();
      await lock.release();
      expect(await store.readLock()).toBeUndefined();
      const next = await store.acquireLock({ since: '2026-01-02T00:00:00.000Z' });
      expect((await store.readLock())?.since).toBe('2026-01-02T00:00:00.000Z');
      await next.release();
    });

    it('takes over the lock of a holder that died', async (context) => {
      const fixture = await open();
      if (fixture.killLockHolder === undefined) {
        context.skip();
        return;
      }
      const { store } = fixture;
      await store.acquireLock({ since: '2026-01-01T00:00:00.000Z' });
      await fixture.killLockHolder();
      const taken = await store.acquireLock({ since: '2026-01-03T00:00:00.000Z' });
      expect(taken.holder.since).toBe('2026-01-03T00:00:00.000Z');
      expect(await store.readLock()).toMatchObject({ pid: process.pid, since: '2026-01-03T00:00:00.000Z' });
      await taken.release();
    });

    it('reads the whole run with readRun', async () => {
      const store = await fresh();
      await store.writeManifest(createTestManifest());
      await store.writeCheckpoint(createTestCheckpoint({ step_count: 2 }));
      await store.prepareStage('start', 1);
      await store.writeStageStatus('start', { outcome: 'success' });
      await store.prepareStage('a', 1);
      await store.writeStageFile('a', 'prompt.md', 'p');
      const lock = await store.acquireLock({ since: '2026-01-01T00:00:00.000Z' });
      const record = await readRun(store);
      expect(record.manifest).toEqual(createTestManifest());
      expect(record.checkpoint?.step_count).toBe(2);
      expect(record.lock?.pid).toBe(process.pid);
      expect(record.stages).toEqual([
        { stagePath: 'a', status: undefined },
        { stagePath: 'start', status: { outcome: 'success' } },
      ]);
      await lock.release();
    });
  });
}
