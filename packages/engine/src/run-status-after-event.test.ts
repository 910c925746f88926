import { describe, expect, it } from 'vitest';
import { type RunEventState, runStatusAfterEvent } from './run-status-after-event.js';

/** Folds event types (as a log holds them, in order) with {@link runStatusAfterEvent}. */
function fold(types: readonly (string | undefined)[]): RunEventState | undefined {
  let state: RunEventState | undefined;
  for (const type of types) state = runStatusAfterEvent(state, type === undefined ? {} : { type });
  return state;
}

describe('runStatusAfterEvent (docs/architecture.md "Run directory", RunCatalog.listRuns)', () => {
  it.each<{
    readonly log: readonly (string | undefined)[];
    readonly status: string | undefined;
    readonly open: number;
  }>([
    { log: [], status: undefined, open: 0 },
    { log: ['checkpoint.saved', 'agent.usage'], status: undefined, open: 0 },
    { log: ['pipeline.started', 'stage.started', 'stage.completed'], status: 'running', open: 0 },
    { log: ['pipeline.started', 'stage.started', 'interview.started'], status: 'waiting', open: 1 },
    { log: ['pipeline.started', 'interview.started', 'interview.completed'], status: 'running', open: 0 },
    { log: ['pipeline.started', 'interview.started', 'interview.timeout'], status: 'running', open: 0 },
    {
      log: ['pipeline.started', 'interview.started', 'interview.started', 'interview.completed'],
      status: 'waiting',
      open: 1,
    },
    { log: ['interview.completed'], status: 'running', open: 0 },
    { log: ['pipeline.started', 'interview.started', 'pipeline.suspended'], status: 'suspended', open: 1 },
    {
      log: [
        'pipeline.started',
        'interview.started',
        'pipeline.suspended',
        'pipeline.started',
        'stage.started',
      ],
      status: 'running',
      open: 0,
    },
    { log: ['pipeline.started', 'pipeline.completed'], status: 'success', open: 0 },
    { log: ['pipeline.started', 'pipeline.failed'], status: 'fail', open: 0 },
    { log: ['pipeline.started', 'interview.started', 'pipeline.cancelled'], status: 'cancelled', open: 1 },
    { log: ['pipeline.started', 'pipeline.failed', 'pipeline.started'], status: 'running', open: 0 },
    { log: ['pipeline.started', 'pipeline.completed', undefined, 'stage.log'], status: 'success', open: 0 },
  ])('after $log: $status with $open interviews open', ({ log, status, open }) => {
    const state = fold(log);
    expect(state?.status).toBe(status);
    expect(state?.openInterviews ?? 0).toBe(open);
  });

  it('returns the state before when the event changes nothing', () => {
    const before = runStatusAfterEvent(undefined, { type: 'pipeline.started' });
    expect(runStatusAfterEvent(before, { type: 'stage.started' })).toBe(before);
    expect(runStatusAfterEvent(before, { type: 42 })).toBe(before);
  });
});
