import type { PipelineEvent } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { addEventToTotals, createRunTotals, indexSummaryFields, totalsSummaryFields } from './run-totals.js';

let seq = 0;
const event = (fields: Record<string, unknown>): PipelineEvent =>
  ({
    seq: ++seq,
    timestamp: `2026-12-02T10:00:${String(seq).padStart(2, '0')}Z`,
    runId: 'r',
    ...fields,
  }) as PipelineEvent;
const started = () => event({ type: 'pipeline.started', name: 'G', id: 'r' });

function fold(events: readonly PipelineEvent[]) {
  const totals = createRunTotals();
  for (const one of events) addEventToTotals(totals, one);
  return totalsSummaryFields(totals);
}

describe('run totals', () => {
  it('count every leg of a run suspended at a gate and resumed, not only the last (the trial saw 24 ms for 30 s)', () => {
    const question = { id: 'gate@1#1', stage: 'gate', text: 'Ship?', options: [] };
    const legs = [
      started(),
      event({ type: 'pipeline.suspended', stage: 'gate', question, durationMs: 30_000 }),
      started(),
    ];
    // Running again: no duration until it ends.
    expect(fold(legs).durationMs).toBeUndefined();
    const ended = fold([
      ...legs,
      event({ type: 'pipeline.completed', durationMs: 24, artifactCount: 0, completedCount: 5 }),
    ]);
    expect(ended.durationMs).toBe(30_024);
    expect(ended.endedAt).toBe('2026-12-02T10:00:04Z');
  });

  it('add a failed leg and its resume; branch events do not count', () => {
    const summary = fold([
      started(),
      event({
        type: 'pipeline.completed',
        durationMs: 7,
        artifactCount: 0,
        completedCount: 1,
        branchPath: ['fan/a'],
      }),
      event({ type: 'pipeline.failed', error: 'x', durationMs: 100 }),
      started(),
      event({ type: 'pipeline.completed', durationMs: 50, artifactCount: 0, completedCount: 3 }),
    ]);
    expect(summary.durationMs).toBe(150);
  });

  it("a resumed run has no end while it runs again; its end is the resume's, its duration both legs", () => {
    const failed = [started(), event({ type: 'pipeline.failed', error: 'x', durationMs: 100 })];
    const failedAt = failed[1]!.timestamp;
    expect(fold(failed)).toMatchObject({ endedAt: failedAt, durationMs: 100 });
    const resumed = [...failed, event({ type: 'pipeline.started', name: 'G', resumed: true })];
    // Running again: the earlier end no longer holds (the run's state is running), nor a duration of one leg.
    expect(fold(resumed).endedAt).toBeUndefined();
    expect(fold(resumed).durationMs).toBeUndefined();
    // A child pipeline's start (its events carry the parent's branch path) changes nothing of the parent's totals.
    const withChild = [
      ...failed,
      event({ type: 'pipeline.started', name: 'child', runId: 'c', branchPath: ['child:review'] }),
      event({ type: 'pipeline.completed', durationMs: 5, runId: 'c', branchPath: ['child:review'] }),
    ];
    expect(fold(withChild)).toMatchObject({ endedAt: failedAt, durationMs: 100 });
    const completed = event({ type: 'pipeline.completed', durationMs: 50, completedCount: 3 });
    expect(fold([...resumed, completed])).toMatchObject({
      endedAt: completed.timestamp,
      durationMs: 150,
      resumes: 1,
    });
  });

  it("count resumes of the run itself, not a fork's first start nor a child pipeline's", () => {
    const origin = { runId: 'source', node: 'a', visit: 2 };
    const summary = fold([
      event({ type: 'pipeline.started', name: 'G', resumed: true, forkedFrom: origin }),
      event({ type: 'pipeline.started', name: 'child', resumed: true, runId: 'child-run' }),
      event({ type: 'pipeline.failed', error: 'x', durationMs: 1 }),
      event({ type: 'pipeline.started', name: 'G', resumed: true }),
    ]);
    expect(summary.forkedFrom).toEqual(origin);
    expect(summary.resumes).toBe(1);
    expect(fold([started()]).resumes).toBeUndefined();
  });

  it('a run continued by the answer to the gate it was suspended at is not resumed; one resumed after a cancel is', () => {
    const question = { id: 'gate@1#1', stage: 'gate', text: 'Ship?', options: [] };
    const resumed = () => event({ type: 'pipeline.started', name: 'G', resumed: true });
    const summary = fold([
      started(),
      event({ type: 'pipeline.suspended', stage: 'gate', question, durationMs: 10 }),
      // A parallel branch's end in between ends no leg.
      event({ type: 'pipeline.completed', durationMs: 1, completedCount: 1, branchPath: ['fan/a'] }),
      resumed(),
      event({ type: 'pipeline.cancelled', reason: 'stop', durationMs: 20 }),
      resumed(),
      event({ type: 'pipeline.suspended', stage: 'gate', question, durationMs: 30 }),
      resumed(),
      event({ type: 'pipeline.completed', durationMs: 40, completedCount: 3 }),
    ]);
    expect(summary.resumes).toBe(1);
    expect(summary.durationMs).toBe(100);
  });

  it('count the failed branches and items of the latest run of each parallel and foreach node', () => {
    const parallel = (nodeId: string, failureCount: number, branchPath?: string[]) =>
      event({
        type: 'parallel.completed',
        nodeId,
        durationMs: 1,
        successCount: 1,
        failureCount,
        ...(branchPath ? { branchPath } : {}),
      });
    const summary = fold([
      started(),
      parallel('fan', 2),
      parallel('inner', 1, ['fan/a']),
      event({
        type: 'foreach.completed',
        nodeId: 'each',
        durationMs: 1,
        successCount: 0,
        failureCount: 3,
        notStartedCount: 0,
      }),
      // The loop runs fan again: its second result replaces the first.
      parallel('fan', 1),
    ]);
    expect(summary.failedBranches).toBe(2);
    expect(summary.failedItems).toBe(3);
    expect(fold([started(), parallel('fan', 0)]).failedBranches).toBeUndefined();
  });

  it('give the same fields from a run index entry that keeps the totals, and only the end from one that does not', () => {
    const base = { runId: 'r', graphName: 'G', goal: '', startedAt: '2026-12-02T10:00:00Z' } as const;
    expect(
      indexSummaryFields({
        ...base,
        status: 'success',
        endedAt: '2026-12-02T10:05:00Z',
        durationMs: 1860,
        forkedFrom: 'source',
        forkedAt: { node: 'plan', visit: 2 },
        inputTokens: 105,
        outputTokens: 25,
        resumes: 2,
        failedBranches: 2,
        failedItems: 1,
      }),
    ).toEqual({
      endedAt: '2026-12-02T10:05:00Z',
      durationMs: 1860,
      forkedFrom: { runId: 'source', node: 'plan', visit: 2 },
      usage: { inputTokens: 105, outputTokens: 25 },
      resumes: 2,
      failedBranches: 2,
      failedItems: 1,
    });
    // An entry of a catalog that keeps no totals (the file catalog): none is claimed (a zero duration would be wrong).
    expect(
      indexSummaryFields({ ...base, status: 'fail', endedAt: '2026-12-02T10:05:00Z', forkedFrom: 'source' }),
    ).toEqual({ endedAt: '2026-12-02T10:05:00Z' });
    expect(indexSummaryFields({ ...base, status: 'running', costUsd: 0.5 })).toEqual({
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0.5 },
    });
  });
});
