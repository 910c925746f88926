import type { Graph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { registryWith, run } from '../test/helpers.js';
import { parseCheckpoint } from './checkpoint-schema.js';
import { CheckpointCorruptError } from './errors/checkpoint-corrupt-error.js';
import type { Checkpoint, StageRecord } from './run-store.js';
import { createCheckpointSerializer, expandHistoryLine, WINDOW_DELTA_KEY } from './serialize-checkpoint.js';
import { createTestGraph } from './test/graph-builder.js';
import { createMemoryRunStore } from './test/memory-run-store.js';
import { createTestCheckpoint } from './test/run-store-contract.js';
import { createScriptedHandler, type ScriptStep } from './test/scripted-handler.js';

/** The checkpoints of a run of `graph`, as the run store is given them. */
async function checkpointsOf(graph: Graph, script: Record<string, ScriptStep[]> = {}): Promise<Checkpoint[]> {
  const store = createMemoryRunStore();
  const seen: Checkpoint[] = [];
  await run({
    graph,
    registry: registryWith(createScriptedHandler({ script })),
    createRunStore: () => ({
      ...store,
      writeCheckpoint: (checkpoint) => {
        seen.push(checkpoint);
        return store.writeCheckpoint(checkpoint);
      },
    }),
  });
  return seen;
}

describe('checkpoint serialisation', () => {
  it('writes exactly what JSON.stringify writes, for every checkpoint of a run', async () => {
    const seen = await checkpointsOf(
      createTestGraph({ edges: ['start -> a -> "b \\"quoted\\"" -> c -> exit'] }),
      { c: [{ status: 'success', notes: 'ü\n"x"' }] },
    );
    expect(seen.length).toBeGreaterThan(4);
    const serializer = createCheckpointSerializer();
    for (const checkpoint of seen)
      expect(serializer.serialize(checkpoint).text).toBe(JSON.stringify(checkpoint));
  });

  it('writes exactly what JSON.stringify writes for a loop of 130 visits (full windows of one id)', async () => {
    const graph = createTestGraph({
      settings: { maxNodeVisits: 200, maxSteps: 200 },
      edges: [
        'start -> work',
        { from: 'work', to: 'work', condition: 'outcome=success' },
        { from: 'work', to: 'exit', condition: 'outcome=done' },
      ],
    });
    const seen = await checkpointsOf(graph, {
      work: [...Array.from({ length: 129 }, () => 'success' as const), { status: 'done', notes: 'last' }],
    });
    expect(seen.length).toBeGreaterThan(130);
    const serializer = createCheckpointSerializer();
    for (const checkpoint of seen)
      expect(serializer.serialize(checkpoint).text).toBe(JSON.stringify(checkpoint));
  });

  it('matches JSON.stringify for odd ids, absent fields and records replaced between calls', () => {
    const serialize = (checkpoint: Checkpoint) => createCheckpointSerializer().serialize(checkpoint).text;
    const first: StageRecord = { node: 'a', status: 'success' };
    const base = createTestCheckpoint({
      completed_nodes: ['start', 'a', 'line\nbreak', 'emoji 🚀', '"q"'],
      recent_stages: [first, { node: 'b', status: 'fail', failure_reason: 'x\ty' }],
    });
    const cases: Checkpoint[] = [
      base,
      { ...base, failure_reason: 'stopped' },
      { ...base, recent_stages: [{ ...first, notes: 'replaced' }, first] },
      { ...base, completed_nodes: [], recent_stages: [] },
      { ...base, failure_reason: undefined } as unknown as Checkpoint,
    ];
    for (const checkpoint of cases) expect(serialize(checkpoint)).toBe(JSON.stringify(checkpoint));
    expect(JSON.parse(serialize(cases[2]!)).recent_stages[0].notes).toBe('replaced');
  });
});

describe('checkpoint history lines (windows as deltas against the line before)', () => {
  /** Reads history lines back like the file store does. */
  function expandAll(lines: readonly string[]): Checkpoint[] {
    const result: Checkpoint[] = [];
    for (const [index, line] of lines.entries())
      result.push(
        parseCheckpoint(expandHistoryLine(JSON.parse(line), result.at(-1), `line ${index + 1}`), 'x'),
      );
    return result;
  }

  it('reads back every checkpoint of a run exactly, the first line whole and the others as deltas', async () => {
    // 200 stages: the windows (100 completed nodes, 50 recent stages) are full well before checkpoint 150.
    const nodes = Array.from({ length: 200 }, (_, index) => `n${index}`);
    const checkpoints = await checkpointsOf(
      createTestGraph({ edges: [['start', ...nodes, 'exit'].join(' -> ')] }),
      {
        n3: [{ status: 'success', notes: 'ü "x"' }],
      },
    );
    const serializer = createCheckpointSerializer();
    const serialized = checkpoints.map((checkpoint) => serializer.serialize(checkpoint));
    expect(serialized.map(({ text }) => text)).toEqual(
      checkpoints.map((checkpoint) => JSON.stringify(checkpoint)),
    );
    const lines = serialized.map(({ historyLine }) => historyLine);
    expect(expandAll(lines)).toEqual(checkpoints.map((checkpoint) => JSON.parse(JSON.stringify(checkpoint))));
    expect(JSON.parse(lines[0]!)).not.toHaveProperty(WINDOW_DELTA_KEY);
    const late = JSON.parse(lines[150]!);
    expect(late[WINDOW_DELTA_KEY]).toEqual({
      completed_nodes: [99, [checkpoints[150]!.completed_nodes.at(-1)]],
      recent_stages: [49, [checkpoints[150]!.recent_stages.at(-1)]],
    });
    expect(late).not.toHaveProperty('completed_nodes');
    // A third of the checkpoint, or less, once the windows are full.
    const text = serializer.serialize(checkpoints.at(-1)!).text;
    expect(lines[150]!.length).toBeLessThan(text.length / 3);
  }, 120_000);

  it('writes a list whole when it did not simply move on, and after reset()', () => {
    const serializer = createCheckpointSerializer();
    const first = createTestCheckpoint({ step_count: 2, completed_nodes: ['start', 'a'] });
    serializer.serialize(first);
    // Moved on by one node: a delta.
    const moved = createTestCheckpoint({ step_count: 3, completed_nodes: ['start', 'a', 'b'] });
    expect(JSON.parse(serializer.serialize(moved).historyLine)[WINDOW_DELTA_KEY].completed_nodes).toEqual([
      2,
      ['b'],
    ]);
    // Rewritten (a resume's window, a fork): whole.
    const rewritten = createTestCheckpoint({ step_count: 4, completed_nodes: ['x', 'y', 'z', 'c'] });
    const line = JSON.parse(serializer.serialize(rewritten).historyLine);
    expect(line.completed_nodes).toEqual(['x', 'y', 'z', 'c']);
    expect(line[WINDOW_DELTA_KEY]).not.toHaveProperty('completed_nodes');
    serializer.reset();
    const after = JSON.parse(serializer.serialize(createTestCheckpoint({ step_count: 5 })).historyLine);
    expect(after).not.toHaveProperty(WINDOW_DELTA_KEY);
  });

  it('refuses a delta line without the line before it, and a malformed delta, naming the line', () => {
    const delta = { ...createTestCheckpoint(), [WINDOW_DELTA_KEY]: { completed_nodes: [1, ['b']] } };
    expect(() => expandHistoryLine(delta, undefined, 'checkpoints.jsonl line 7')).toThrow(
      CheckpointCorruptError,
    );
    expect(() => expandHistoryLine(delta, undefined, 'checkpoints.jsonl line 7')).toThrow(
      /checkpoints.jsonl line 7.*continues a checkpoint that is missing/,
    );
    const previous = createTestCheckpoint({ completed_nodes: ['start'] });
    const tooMany = { ...createTestCheckpoint(), [WINDOW_DELTA_KEY]: { completed_nodes: [5, ['b']] } };
    expect(() => expandHistoryLine(tooMany, previous, 'line 2')).toThrow(/window_delta\.completed_nodes/);
    const unknown = { ...createTestCheckpoint(), [WINDOW_DELTA_KEY]: { context: [0, []] } };
    expect(() => expandHistoryLine(unknown, previous, 'line 2')).toThrow(/window_delta\.context/);
  });
});
