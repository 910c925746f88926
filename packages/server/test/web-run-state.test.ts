/**
 * The web UI's run state (web/src/run-state.ts) on the events of a run a worker suspends at a human gate
 * (`pipeline.suspended`, issue 18): the run reads as waiting at its gate, not as cancelled, and a real cancel still
 * ends it; the gate's attempt asked again after the resume is a separate attempt marked resumed.
 */
import type { PipelineEvent, Question } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { applyEvent, createRunState } from '../web/src/run-state.js';

const question: Question = { id: 'ask:1:1', text: 'Ship it?', type: 'yes_no', options: [], stage: 'ask' };
const base = (seq: number) => ({ seq, timestamp: `2026-12-02T08:00:0${seq}.000Z`, runId: 'r' });
const gateEvents: PipelineEvent[] = [
  {
    ...base(1),
    type: 'stage.started',
    nodeId: 'ask',
    label: 'Ship it?',
    handlerType: 'wait.human',
    index: 2,
    visit: 1,
    attempt: 1,
  },
  { ...base(2), type: 'interview.started', question, stage: 'ask' },
  {
    ...base(3),
    type: 'pipeline.suspended',
    stage: 'ask',
    question,
    deadlineAt: '2026-12-02T09:00:02.000Z',
    durationMs: 3000,
  },
];

describe('the web run state of a suspended run', () => {
  it('shows the run waiting at its gate, not ended, with the question still open', () => {
    const state = createRunState('r');
    for (const event of gateEvents) applyEvent(state, event);
    expect(state.ended).toBeUndefined();
    expect(state.nodeStatus.get('ask')).toBe('waiting');
    expect([...state.gates.keys()]).toEqual(['ask:1:1']);
    expect(state.attempts.map((attempt) => attempt.status)).toEqual(['suspended']);
    expect(state.running.size).toBe(0);
  });

  it('still ends the run on a real pipeline.cancelled', () => {
    const state = createRunState('r');
    for (const event of gateEvents) applyEvent(state, event);
    applyEvent(state, {
      ...base(4),
      type: 'pipeline.cancelled',
      reason: 'stopped by the user',
      durationMs: 1,
    });
    expect(state.ended).toBe('cancelled');
    expect(state.gates.size).toBe(0);
  });
});

describe('the web run state of a resumed run', () => {
  it("keeps the gate's attempt asked again after the resume apart from the suspended one, marked resumed", () => {
    const state = createRunState('r');
    for (const event of gateEvents) applyEvent(state, event);
    applyEvent(state, {
      ...base(4),
      type: 'pipeline.started',
      name: 'g',
      goal: '',
      logsRoot: 'r',
      resumed: true,
      startNodeId: 'ask',
    } as PipelineEvent);
    applyEvent(state, { ...gateEvents[0]!, ...base(5) } as PipelineEvent);
    expect(
      state.attempts.map((attempt) => [attempt.visit, attempt.attempt, attempt.resumed, attempt.status]),
    ).toEqual([
      [1, 1, 0, 'suspended'],
      [1, 1, 1, 'running'],
    ]);
    expect(new Set(state.attempts.map((attempt) => attempt.key)).size).toBe(2);
  });
});
