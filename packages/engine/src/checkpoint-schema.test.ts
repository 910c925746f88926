import { describe, expect, it } from 'vitest';
import { checkpointSchema, parseCheckpoint } from './checkpoint-schema.js';
import { CheckpointCorruptError } from './errors/checkpoint-corrupt-error.js';
import { createTestCheckpoint } from './test/run-store-contract.js';
import { VisitedNodes } from './visited-nodes.js';

describe('checkpointSchema (docs/architecture.md "Checkpoint")', () => {
  it('round-trips a checkpoint through JSON unchanged', () => {
    const checkpoint = createTestCheckpoint({
      node_outcomes: JSON.parse('{"__proto__":{"status":"done","notes":"n","suggestedNextIds":["a"]}}'),
      failure_reason: 'x',
      origin: { run_id: 'r', logs_root: '/runs/r', checkpoint: 3, node: 'a', visit: 2 },
    });
    const parsed = parseCheckpoint(JSON.parse(JSON.stringify(checkpoint)), 'memory');
    expect(parsed).toEqual(JSON.parse(JSON.stringify(checkpoint)));
    expect(Object.keys(parsed.node_outcomes)).toEqual(['__proto__']);
    expect(checkpointSchema.safeParse(parsed).success).toBe(true);
  });

  it.each([
    ['not an object', [], 'expected a JSON object, got []'],
    ['a string visited_nodes of the wrong form', { visited_nodes: '1-' }, 'field "visited_nodes"'],
    ['a negative step count', { step_count: -1 }, 'field "step_count"'],
    ['an outcome without a status', { node_outcomes: { a: {} } }, 'field "node_outcomes.a.status"'],
    ['a non-JSON context value', { context: { a: undefined } }, 'field "context.a"'],
  ])('refuses %s, naming the field', (_name, patch, message) => {
    const value = Array.isArray(patch) ? patch : { ...createTestCheckpoint(), ...patch };
    let error: unknown;
    try {
      parseCheckpoint(value, '/runs/r/checkpoint.json');
    } catch (caught) {
      error = caught;
    }
    expect(CheckpointCorruptError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).toContain('/runs/r/checkpoint.json');
  });
});

describe('VisitedNodes', () => {
  it('keeps contiguous positions as one range and splits on removal', () => {
    const visited = new VisitedNodes();
    for (const position of [0, 1, 2, 4, 3, 9, 7, 8]) visited.add(position);
    expect(visited.toString()).toBe('0-4,7-9');
    visited.remove(8);
    expect(visited.toString()).toBe('0-4,7,9');
    visited.add(8);
    visited.add(5);
    expect(visited.toString()).toBe('0-5,7-9');
    expect([...VisitedNodes.parse('0-2,5').positions()]).toEqual([0, 1, 2, 5]);
    expect(VisitedNodes.parse(visited.toString()).toString()).toBe(visited.toString());
  });

  it('stays short for a long chain', () => {
    const visited = new VisitedNodes();
    for (let position = 0; position < 10_000; position++) visited.add(position);
    expect(visited.toString()).toBe('0-9999');
  });
});
