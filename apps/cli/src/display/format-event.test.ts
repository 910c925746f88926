import type { PipelineEvent } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { createColors } from '../colors.js';
import { formatEvent } from './format-event.js';
import { FIRST_LINE_MAX_CHARS, firstLine } from './format-values.js';

const colors = createColors(false);
const base = { seq: 1, timestamp: '2026-01-01T00:00:00.000Z', runId: 'r', index: 1, visit: 1 };

function failed(error: string): PipelineEvent {
  return {
    ...base,
    type: 'stage.failed',
    nodeId: 'build',
    attempt: 1,
    error,
    willRetry: true,
    durationMs: 1200,
  };
}

function completedWithReason(failureReason: string): PipelineEvent {
  return {
    ...base,
    type: 'stage.completed',
    nodeId: 'build',
    attempt: 2,
    status: 'fail',
    failureReason,
    durationMs: 1200,
  };
}

const line = (event: PipelineEvent) => formatEvent(event, { colors, verbosity: 'normal', live: false });

describe('failure reasons on stage lines', () => {
  it('shows the whole first line of a long retry reason, past 160 characters', () => {
    const reason = `command exited with code 2: ${'error: cannot find module "./generated/schema.js" '.repeat(6)}end`;
    expect(reason.length).toBeGreaterThan(300);
    expect(line(failed(reason))).toBe(`↻ build attempt 1 failed: ${reason.trim()} — retrying`);
  });

  it('shows the first line of a multi-line retry reason and counts the lines after it', () => {
    const reason =
      'command exited with code 1: FAIL src/a.test.ts\n  expected 2, got 3\n\n  at a.test.ts:4\n';
    expect(line(failed(reason))).toBe(
      '↻ build attempt 1 failed: command exited with code 1: FAIL src/a.test.ts (+2 more lines) — retrying',
    );
  });

  it('shows the whole first line of the reason on a failed completion line', () => {
    const reason = `simulated fail (script entry 2 for "build"): ${'x'.repeat(200)}`;
    expect(line(completedWithReason(reason))).toBe(`✖ build fail 1.2s — ${reason}`);
  });
});

describe('firstLine', () => {
  it('skips leading blank lines and trims', () => {
    expect(firstLine('\n\n   first  \nsecond\n')).toEqual({ line: 'first', moreLines: 1 });
  });

  it(`cuts a single line past ${FIRST_LINE_MAX_CHARS} characters with an ellipsis`, () => {
    const { line: shown, moreLines } = firstLine('y'.repeat(FIRST_LINE_MAX_CHARS + 10));
    expect(shown).toBe(`${'y'.repeat(FIRST_LINE_MAX_CHARS - 1)}…`);
    expect(moreLines).toBe(0);
  });
});

describe('foreach events (README "Typed data")', () => {
  const stamp = { seq: 1, timestamp: '2026-01-01T00:00:00.000Z', runId: 'r' };

  it('shows the items, each item that ended (kept ones only when verbose), and the tally', () => {
    expect(
      line({
        ...stamp,
        type: 'foreach.started',
        nodeId: 'each',
        itemCount: 50,
        mode: 'parallel',
        keptCount: 9,
      }),
    ).toBe('⟳ each: 50 items, parallel (9 kept from before)');
    expect(
      line({
        ...stamp,
        type: 'foreach.item.completed',
        nodeId: 'each',
        index: 7,
        durationMs: 1500,
        success: false,
        status: 'fail',
        failureReason: 'command exited with code 3',
      }),
    ).toBe('  ✖ item 7: fail in 1.5s — command exited with code 3');
    const kept = {
      ...stamp,
      type: 'foreach.item.completed',
      nodeId: 'each',
      index: 2,
      durationMs: 0,
      success: true,
      status: 'success',
      kept: true,
    } as const;
    expect(line(kept)).toBeUndefined();
    expect(formatEvent(kept, { colors, verbosity: 'verbose', live: false })).toBe(
      '  ✔ item 2: success (kept)',
    );
    expect(
      line({
        ...stamp,
        type: 'foreach.completed',
        nodeId: 'each',
        durationMs: 2000,
        successCount: 47,
        failureCount: 1,
        notStartedCount: 2,
      }),
    ).toBe('⟲ each: 47 succeeded, 1 failed, 2 not started 2s');
  });

  it("names the item on the lines of an item's stages (branchPath items/<n>), nested items by each index", () => {
    const stage = { ...stamp, nodeId: 'check', index: 1, visit: 1, attempt: 1 };
    const succeeded = (branchPath: string[]) =>
      line({ ...stage, type: 'stage.completed', status: 'success', durationMs: 1500, branchPath });
    expect(succeeded(['items/3'])).toBe('  ✔ check [3] 1.5s');
    expect(
      line({
        ...stage,
        type: 'stage.completed',
        status: 'fail',
        failureReason: 'command exited with code 3',
        durationMs: 1500,
        branchPath: ['items/1', 'items/4'],
      }),
    ).toBe('    ✖ check [1][4] fail 1.5s — command exited with code 3');
    expect(
      line({
        ...stage,
        type: 'stage.failed',
        error: 'command exited with code 3',
        willRetry: true,
        durationMs: 1500,
        branchPath: ['items/2'],
      }),
    ).toBe('  ↻ check [2] attempt 1 failed: command exited with code 3 — retrying');
    expect(
      line({ ...stage, type: 'stage.started', label: 'check', handlerType: 'tool', branchPath: ['items/0'] }),
    ).toBe('  … check [0] (tool)');
    // A warning of an item's stage too (an out_map field its output lacks).
    expect(
      line({
        ...stamp,
        type: 'stage.log',
        nodeId: 'look',
        level: 'warn',
        message: 'out_map of "look": the output has no field "note"',
        branchPath: ['items/0'],
      }),
    ).toBe('    look [0]: out_map of "look": the output has no field "note"');
    // A parallel branch's path names no item.
    expect(succeeded(['fork/a'])).toBe('  ✔ check 1.5s');
  });
});
