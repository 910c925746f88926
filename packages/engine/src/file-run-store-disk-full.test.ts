/**
 * A disk that fills in the middle of an append (issue 34 §15), injected into `node:fs`: the write takes part of the
 * line, the next one fails with ENOSPC. apps/cli/test/faults.e2e.test.ts does the same on a real, full tmpfs where the
 * machine lets the tests mount one.
 */
import type * as fs from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { createFileRunStore } from './file-run-store.js';
import type { PipelineEvent } from './pipeline-event.js';
import { createTestCheckpoint } from './test/run-store-contract.js';
import { wholeJsonLines } from './test/whole-json-lines.js';

/** Bytes the disk still takes; undefined: as many as asked. */
let room: number | undefined;

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  const writeSync = ((fd: number, data: Uint8Array | string, ...rest: unknown[]) => {
    if (room === undefined || typeof data === 'string') {
      return (actual.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
    }
    if (room === 0)
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const offset = typeof rest[0] === 'number' ? rest[0] : 0;
    const length = Math.min(room, typeof rest[1] === 'number' ? rest[1] : data.length - offset);
    const written = actual.writeSync(fd, data, offset, length);
    room -= written;
    return written;
  }) as typeof fs.writeSync;
  return { ...actual, writeSync, default: { ...actual, writeSync } };
});

afterEach(() => {
  room = undefined;
});

const checkpointAt = (step: number) =>
  createTestCheckpoint({
    step_count: step,
    current_node: `n${step}`,
    completed_nodes: Array.from({ length: step }, (_, index) => `n${index + 1}`),
  });

describe('file run store on a full disk (issue 34 §15)', () => {
  it('cuts a checkpoint history line the disk took only part of back off, and the next write after space came back is whole', async () => {
    const logsRoot = tempDir();
    const store = createFileRunStore({ logsRoot });
    store.writeCheckpoint(checkpointAt(1));
    store.writeCheckpoint(checkpointAt(2));
    const history = join(logsRoot, 'checkpoints.jsonl');
    const before = readFileSync(history, 'utf8');
    room = 40;
    expect(() => store.writeCheckpoint(checkpointAt(3))).toThrow(/ENOSPC/);
    expect(readFileSync(history, 'utf8')).toBe(before);
    room = undefined;
    store.writeCheckpoint(checkpointAt(4));
    store.close();
    const text = readFileSync(history, 'utf8');
    expect(wholeJsonLines(text)).toBe(true);
    const read = await createFileRunStore({ logsRoot }).readCheckpointHistory();
    expect(read.map((checkpoint) => checkpoint.step_count)).toEqual([1, 2, 4]);
    expect(read[2]!.completed_nodes).toEqual(['n1', 'n2', 'n3', 'n4']);
  });

  it('appends events whole or not at all', async () => {
    const logsRoot = tempDir();
    const store = createFileRunStore({ logsRoot });
    const event = (seq: number): PipelineEvent => ({
      seq,
      timestamp: '2026-01-01T00:00:00.000Z',
      runId: 'run',
      type: 'stage.log',
      nodeId: 'work',
      level: 'info',
      message: `event ${seq}`,
    });
    store.appendEvents([event(1)]);
    room = 30;
    expect(() => store.appendEvents([event(2), event(3)])).toThrow(/ENOSPC/);
    room = undefined;
    store.appendEvents([event(4)]);
    store.close();
    expect(wholeJsonLines(readFileSync(join(logsRoot, 'events.jsonl'), 'utf8'))).toBe(true);
    expect((await createFileRunStore({ logsRoot }).readEvents()).map((read) => read.seq)).toEqual([1, 4]);
  });
});
