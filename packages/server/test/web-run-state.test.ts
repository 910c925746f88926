/**
 * The web UI's run state (web/src/run-state.ts) on the events of a run a worker suspends at a human gate
 * (`pipeline.suspended`, issue 18): the run reads as waiting at its gate, not as cancelled, and a real cancel still
 * ends it; the gate's attempt asked again after the resume is a separate attempt marked resumed.
 */
import type { PipelineEvent, Question } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { applyEvent, createRunState, parseBranchPath, stageDirectoryOf } from '../web/src/run-state.js';

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

describe('the web run state of a foreach node', () => {
  const at = (seq: number) => ({
    seq,
    timestamp: `2026-12-02T08:00:${String(seq).padStart(2, '0')}.000Z`,
    runId: 'r',
  });
  const started = (seq: number, keptCount: number): PipelineEvent => ({
    ...at(seq),
    type: 'foreach.started',
    nodeId: 'each',
    itemCount: 3,
    mode: 'serial',
    keptCount,
  });

  it('marks items never started skipped, and keeps the duration of an item a resume kept', () => {
    const state = createRunState('r');
    for (const event of [
      started(1, 0),
      { ...at(2), type: 'foreach.item.started', nodeId: 'each', index: 0, item: 'a.txt' },
      {
        ...at(3),
        type: 'foreach.item.completed',
        nodeId: 'each',
        index: 0,
        item: 'a.txt',
        durationMs: 900,
        success: true,
        status: 'success',
      },
      { ...at(4), type: 'foreach.item.started', nodeId: 'each', index: 1, item: '{"n":2}' },
      { ...at(5), type: 'pipeline.cancelled', reason: 'stopped', durationMs: 5 },
    ] as PipelineEvent[])
      applyEvent(state, event);
    const items = () =>
      state.foreachOf.get('each')!.items.map((item) => [item.item, item.status, item.durationMs, item.kept]);
    expect(items()).toEqual([
      ['a.txt', 'success', 900, false],
      ['{"n":2}', 'cancelled', undefined, false],
      [undefined, 'pending', undefined, false],
    ]);
    for (const event of [
      started(6, 1),
      {
        ...at(7),
        type: 'foreach.item.completed',
        nodeId: 'each',
        index: 0,
        item: 'a.txt',
        durationMs: 0,
        success: true,
        status: 'success',
        kept: true,
      },
      { ...at(8), type: 'foreach.item.started', nodeId: 'each', index: 1, item: '{"n":2}' },
      {
        ...at(9),
        type: 'foreach.item.completed',
        nodeId: 'each',
        index: 1,
        item: '{"n":2}',
        durationMs: 300,
        success: false,
        status: 'fail',
        failureReason: 'exit 3',
      },
      {
        ...at(10),
        type: 'foreach.completed',
        nodeId: 'each',
        durationMs: 400,
        successCount: 1,
        failureCount: 1,
        notStartedCount: 1,
      },
    ] as PipelineEvent[])
      applyEvent(state, event);
    expect(items()).toEqual([
      ['a.txt', 'success', 900, true],
      ['{"n":2}', 'fail', 300, false],
      [undefined, 'skipped', undefined, false],
    ]);
    expect(state.foreachOf.get('each')!.items[1]!.failureReason).toBe('exit 3');
    expect(stageDirectoryOf(state, { branchPath: ['items/1'], nodeId: 'check' })).toBe('each/items/1/check');
  });

  it("reads an item's part of a ?branch= path whole", () => {
    expect(parseBranchPath('items/3')).toEqual(['items/3']);
    expect(parseBranchPath('a/items/12/x')).toEqual(['a', 'items/12', 'x']);
    expect(parseBranchPath('a/x')).toEqual(['a', 'x']);
  });
});
