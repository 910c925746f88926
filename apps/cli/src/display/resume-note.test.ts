import type { PipelineEvent } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { createColors } from '../colors.js';
import { formatFinish } from './format-finish.js';
import { createResumeNote } from './resume-note.js';

const stamp = { seq: 1, timestamp: '2026-01-01T00:00:00.000Z', runId: 'r' };
const stage = (nodeId: string, status: 'success' | 'fail', branchPath?: string[]): PipelineEvent => ({
  ...stamp,
  type: 'stage.completed',
  nodeId,
  index: 1,
  visit: 1,
  attempt: 1,
  status,
  durationMs: 10,
  ...(branchPath === undefined ? {} : { branchPath }),
});
const item = (index: number, success: boolean, kept?: true): PipelineEvent => ({
  ...stamp,
  type: 'foreach.item.completed',
  nodeId: 'each',
  index,
  durationMs: 10,
  success,
  status: success ? 'success' : 'fail',
  ...(kept === undefined ? {} : { kept }),
});

/** The events of a serial foreach over 5 items whose item 1 failed under on_item_error=fail. */
function failedForeach(): PipelineEvent[] {
  return [
    stage('start', 'success'),
    { ...stamp, type: 'foreach.started', nodeId: 'each', itemCount: 5, mode: 'serial', keptCount: 0 },
    stage('check', 'success', ['items/0']),
    item(0, true),
    stage('check', 'fail', ['items/1']),
    item(1, false),
    {
      ...stamp,
      type: 'foreach.completed',
      nodeId: 'each',
      durationMs: 30,
      successCount: 1,
      failureCount: 1,
      notStartedCount: 3,
    },
    stage('each', 'fail'),
  ];
}

describe('createResumeNote (what `resume` of a failed run does)', () => {
  it('says a failed foreach runs again with its succeeded items kept, and that an unchanged cause fails the same way', () => {
    const note = createResumeNote();
    for (const event of failedForeach()) note.onEvent(event);
    expect(note.text()).toBe(
      'resuming runs foreach "each" again: it keeps the 1 item that succeeded and runs item 1 (failed) and the 3 not started; unless what made item 1 fail is fixed or was passing, it fails the same way.',
    );
  });

  it('counts the items a resumed leg kept, and several failed items', () => {
    const note = createResumeNote();
    for (const event of [
      { ...stamp, type: 'foreach.started', nodeId: 'each', itemCount: 4, mode: 'parallel', keptCount: 2 },
      item(0, true, true),
      item(2, true, true),
      item(1, false),
      item(3, false),
      {
        ...stamp,
        type: 'foreach.completed',
        nodeId: 'each',
        durationMs: 30,
        successCount: 2,
        failureCount: 2,
        notStartedCount: 0,
      },
      stage('each', 'fail'),
    ] as PipelineEvent[]) {
      note.onEvent(event);
    }
    expect(note.text()).toBe(
      'resuming runs foreach "each" again: it keeps the 2 items that succeeded and runs items 1 and 3 (failed); unless what made them fail is fixed or was passing, it fails the same way.',
    );
  });

  it('says another failed stage runs again; nothing when the last stage did not fail', () => {
    const note = createResumeNote();
    note.onEvent(stage('build', 'fail'));
    expect(note.text()).toBe(
      'resuming runs "build" again; unless what made it fail is fixed or was passing, it fails the same way.',
    );
    // A failed stage of a branch or an item is not where the run stopped.
    note.onEvent(stage('review', 'success'));
    note.onEvent(stage('check', 'fail', ['items/0']));
    expect(note.text()).toBeUndefined();
  });

  it('is printed under the resume command of a failed run', () => {
    const note = createResumeNote();
    for (const event of failedForeach()) note.onEvent(event);
    const text = formatFinish(
      {
        status: 'fail',
        failureReason: 'node "each" failed',
        durationMs: 300,
        logsRoot: 'run',
        resumeCommand: 'attractor resume run',
        resumeNote: note.text()!,
        completedNodes: ['start', 'each'],
      },
      createColors(false),
    );
    expect(text.split('\n').slice(-2)).toEqual([
      '  resume with:   attractor resume run',
      `                 (${note.text()})`,
    ]);
  });
});
