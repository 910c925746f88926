/** A fork's inherited stage statuses (`GET /pipelines/{id}` of a fork): the source's stages up to the fork point. */
import type { PipelineEvent } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { inheritedStageStatuses } from '../src/run-summary.js';

/** A `stage.completed` event of run `src` (only the fields the statuses read, plus the base ones). */
function completed(nodeId: string, visit: number, branchPath?: string[]): PipelineEvent {
  return {
    type: 'stage.completed',
    runId: 'src',
    seq: 0,
    timestamp: '2026-01-01T00:00:00.000Z',
    nodeId,
    index: 0,
    visit,
    attempt: 1,
    status: 'success',
    durationMs: 1,
    ...(branchPath === undefined ? {} : { branchPath }),
  } as PipelineEvent;
}

describe('inheritedStageStatuses', () => {
  const events = [
    completed('start', 1),
    completed('a1', 1, ['a1']),
    completed('b1', 1, ['b1']),
    completed('fan', 1),
    // A branch stage named like the fork point does not end the inherited part.
    completed('join', 1, ['b1']),
    completed('join', 1),
    completed('report', 1),
    completed('join', 2),
    completed('late', 1),
  ];

  it('keeps the stages up to the fork point, branch stages included, and leaves out the later ones', () => {
    expect(inheritedStageStatuses(events, { runId: 'src', node: 'join', visit: 1 })).toEqual({
      start: 'success',
      a1: 'success',
      b1: 'success',
      fan: 'success',
      join: 'success',
    });
    expect(inheritedStageStatuses(events, { runId: 'src', node: 'join', visit: 2 })).toMatchObject({
      report: 'success',
    });
    expect(inheritedStageStatuses(events, { runId: 'src', node: 'join', visit: 2 })).not.toHaveProperty(
      'late',
    );
  });

  it('inherits nothing when the fork point is not in the log, or from events of another run', () => {
    expect(inheritedStageStatuses(events, { runId: 'src', node: 'join', visit: 3 })).toEqual({});
    expect(inheritedStageStatuses(events, { runId: 'other', node: 'join', visit: 1 })).toEqual({});
  });
});
