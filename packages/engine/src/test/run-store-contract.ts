/**
 * The conformance kit for {@link RunStore} implementations (STYLE.md §8). Call it from a Vitest test file.
 */
import { describe, expect, it } from 'vitest';
import type { PipelineEvent } from '../pipeline-event.js';
import { CHECKPOINT_VERSION, type Checkpoint, type RunStore } from '../run-store.js';

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

/**
 * Registers Vitest tests that every {@link RunStore} must pass: manifest and checkpoint round trips, event order,
 * stage status files, and visit archiving semantics (where the store keeps files).
 *
 * @example
 * describeRunStoreContract('file store', async () => createFileRunStore({ logsRoot: await mkdtemp(...) }));
 */
export function describeRunStoreContract(
  name: string,
  createStore: () => RunStore | Promise<RunStore>,
): void {
  describe(`RunStore contract: ${name}`, () => {
    it('returns undefined before anything was written', async () => {
      const store = await createStore();
      expect(await store.readCheckpoint()).toBeUndefined();
      expect(await store.readManifest()).toBeUndefined();
      expect(await store.readEvents()).toEqual([]);
    });

    it('round-trips the manifest and the latest checkpoint', async () => {
      const store = await createStore();
      const manifest = {
        version: 1 as const,
        run_id: 'run',
        graph_name: 'g',
        goal: '',
        source_sha256: 'a'.repeat(64),
        started_at: '2026-01-01T00:00:00.000Z',
        engine_version: '0.0.0',
        workdir: '/tmp',
      };
      await store.writeManifest(manifest);
      await store.writeCheckpoint(createTestCheckpoint({ step_count: 1 }));
      await store.writeCheckpoint(createTestCheckpoint({ step_count: 2 }));
      expect(await store.readManifest()).toEqual(manifest);
      expect((await store.readCheckpoint())?.step_count).toBe(2);
    });

    it('keeps every checkpoint as history, oldest first', async () => {
      const store = await createStore();
      expect(await store.readCheckpointHistory()).toEqual([]);
      for (const step of [1, 2, 3]) await store.writeCheckpoint(createTestCheckpoint({ step_count: step }));
      expect((await store.readCheckpointHistory()).map((checkpoint) => checkpoint.step_count)).toEqual([
        1, 2, 3,
      ]);
    });

    it('refuses a checkpoint that does not match the schema, naming the field', async () => {
      const store = await createStore();
      await store.writeCheckpoint({ ...createTestCheckpoint(), context: 'xyz' } as never);
      await expect(store.readCheckpoint()).rejects.toThrow(/field "context"/);
    });

    it('reports the seq of the last event', async () => {
      const store = await createStore();
      expect(await store.readLastEventSeq()).toBe(0);
      await store.appendEvents([event(1), event(2)]);
      expect(await store.readLastEventSeq()).toBe(2);
    });

    it('appends events in order across calls', async () => {
      const store = await createStore();
      await store.appendEvents([event(1), event(2)]);
      await store.appendEvents([event(3)]);
      expect((await store.readEvents()).map((item) => item.seq)).toEqual([1, 2, 3]);
    });

    it('writes and reads stage status files', async () => {
      const store = await createStore();
      await store.prepareStageDir('a', 1);
      await store.writeStageStatus('a', { outcome: 'fail', failure_reason: 'x' });
      expect(await store.readStageStatus('a')).toEqual({ outcome: 'fail', failure_reason: 'x' });
      expect(await store.readStageStatus('never')).toBeUndefined();
    });

    it('starts a later visit without the earlier visit’s status', async () => {
      const store = await createStore();
      await store.prepareStageDir('a', 1);
      await store.writeStageStatus('a', { outcome: 'fail' });
      await store.prepareStageDir('a', 2);
      expect(await store.readStageStatus('a')).toBeUndefined();
    });
  });
}
