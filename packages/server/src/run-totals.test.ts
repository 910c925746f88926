import type { PipelineEvent } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { addEventToTotals, createRunTotals, totalsSummaryFields } from './run-totals.js';

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
});
