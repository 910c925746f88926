import { describe, expect, it } from 'vitest';
import { registryWith, run } from '../test/helpers.js';
import type { Checkpoint, StageRecord } from './run-store.js';
import { createCheckpointSerializer } from './serialize-checkpoint.js';
import { createTestGraph } from './test/graph-builder.js';
import { createMemoryRunStore } from './test/memory-run-store.js';
import { createTestCheckpoint } from './test/run-store-contract.js';
import { createScriptedHandler } from './test/scripted-handler.js';

describe('checkpoint serialisation', () => {
  it('writes exactly what JSON.stringify writes, for every checkpoint of a run', async () => {
    const store = createMemoryRunStore();
    const seen: Checkpoint[] = [];
    const graph = createTestGraph({ edges: ['start -> a -> "b \\"quoted\\"" -> c -> exit'] });
    await run({
      graph,
      registry: registryWith(
        createScriptedHandler({ script: { c: [{ status: 'success', notes: 'ü\n"x"' }] } }),
      ),
      createRunStore: () => ({
        ...store,
        writeCheckpoint: (checkpoint) => {
          seen.push(checkpoint);
          return store.writeCheckpoint(checkpoint);
        },
      }),
    });
    expect(seen.length).toBeGreaterThan(4);
    const serialize = createCheckpointSerializer();
    for (const checkpoint of seen) expect(serialize(checkpoint)).toBe(JSON.stringify(checkpoint));
  });

  it('matches JSON.stringify for odd ids, absent fields and records replaced between calls', () => {
    const serialize = createCheckpointSerializer();
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
