import type { Checkpoint, RunManifest } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { pastRunSummary, statusesFromOutcomes } from './run-summary.js';

const manifest: RunManifest = {
  version: 1,
  run_id: 'r1',
  graph_name: 'review',
  goal: 'Ship',
  source_sha256: 'abc',
  started_at: '2026-01-01T00:00:00.000Z',
  engine_version: '0.0.0',
  workdir: '/tmp',
};

function checkpoint(state: Checkpoint['state'], extra: Partial<Checkpoint> = {}): Checkpoint {
  return { state, next_node: 'approve', ...extra } as Checkpoint;
}

describe('pastRunSummary', () => {
  it('reports a run whose checkpoint says running and whose log ends without a final event as interrupted', () => {
    expect(
      pastRunSummary({ id: 'r1', manifest, checkpoint: checkpoint('running'), startedByServer: true }),
    ).toEqual({
      id: 'r1',
      graphName: 'review',
      goal: 'Ship',
      state: 'interrupted',
      startedAt: '2026-01-01T00:00:00.000Z',
      live: false,
      resumable: true,
      currentNode: 'approve',
      pendingQuestions: 0,
    });
  });

  it('takes a cancellation from the final event, with its reason', () => {
    const summary = pastRunSummary({
      id: 'r1',
      manifest,
      checkpoint: checkpoint('running'),
      finalEvent: { type: 'pipeline.cancelled', reason: 'server stopped' },
      startedByServer: true,
    });
    expect(summary).toMatchObject({ state: 'cancelled', failureReason: 'server stopped', resumable: true });
  });

  it('never offers to resume a succeeded run or one not started by a server', () => {
    expect(
      pastRunSummary({
        id: 'r1',
        manifest,
        checkpoint: checkpoint('success', { next_node: null }),
        startedByServer: true,
      }),
    ).toMatchObject({ state: 'success', resumable: false });
    expect(
      pastRunSummary({ id: 'r1', manifest, checkpoint: checkpoint('fail'), startedByServer: false }),
    ).toMatchObject({ state: 'fail', resumable: false });
    expect(
      pastRunSummary({ id: 'r1', manifest, checkpoint: undefined, startedByServer: true }),
    ).toMatchObject({
      state: 'interrupted',
      resumable: false,
    });
  });
});

describe('statusesFromOutcomes', () => {
  it('keeps the stage statuses and shows custom outcome words as success', () => {
    expect(
      statusesFromOutcomes({ a: { status: 'success' }, b: { status: 'fail' }, c: { status: 'bug_found' } }),
    ).toEqual({ a: 'success', b: 'fail', c: 'success' });
  });
});
