import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileRunStore, type PipelineEvent } from '@attractor/engine';
import { createTestManifest } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { followChildRuns } from './follow-child-runs.js';

/** A pipeline event of run `runId` (only the fields the follower reads, plus the common ones). */
function event(
  runId: string,
  seq: number,
  fields: { type: string; nodeId?: string; branch?: string; branchPath?: string[]; status?: string },
): PipelineEvent {
  return { seq, runId, timestamp: '2026-12-02T08:00:00.000Z', ...fields } as unknown as PipelineEvent;
}

const typesOf = (events: readonly PipelineEvent[]) => events.map((e) => `${e.runId} ${e.seq} ${e.type}`);

describe('followChildRuns', () => {
  it('finds a child run started in a parallel branch as it appears, reads its events as they grow, and its children', async () => {
    const store = createFileRunStore({ logsRoot: await mkdtemp(join(tmpdir(), 'attractor-follow-')) });
    const follower = followChildRuns(store, undefined);
    const own = [
      event('top', 1, { type: 'pipeline.started' }),
      event('top', 2, { type: 'parallel.branch.started', nodeId: 'fan', branch: 'a' }),
      event('top', 3, { type: 'stage.started', nodeId: 'checks', branchPath: ['a'] }),
    ];
    expect(await follower.next(own, { send: true })).toEqual([]);

    // The sub-pipeline starts in stage fan/branches/a/checks while the parent writes nothing.
    const child = store.child('fan/branches/a/checks/child');
    await child.writeManifest(createTestManifest({ run_id: 'child' }));
    const base = ['a', 'child:checks'];
    await child.appendEvents([
      event('child', 1, { type: 'pipeline.started', branchPath: base }),
      event('child', 2, { type: 'stage.started', nodeId: 'review', branchPath: base }),
    ]);
    expect(typesOf(await follower.next([], { send: true }))).toEqual([
      'child 1 pipeline.started',
      'child 2 stage.started',
    ]);
    expect(await follower.next([], { send: true })).toEqual([]);

    // A grandchild under the child's stage `review`, then both end.
    const grandchild = child.child('review/child');
    await grandchild.writeManifest(createTestManifest({ run_id: 'child' }));
    await grandchild.appendEvents([
      event('child', 1, { type: 'pipeline.started', branchPath: [...base, 'child:review'] }),
      event('child', 2, { type: 'pipeline.completed', branchPath: [...base, 'child:review'] }),
    ]);
    await child.appendEvents([
      event('child', 3, { type: 'stage.completed', nodeId: 'review', branchPath: base, status: 'success' }),
      event('child', 4, { type: 'pipeline.completed', branchPath: base }),
    ]);
    expect(typesOf(await follower.next([], { send: true }))).toEqual([
      'child 3 stage.completed',
      'child 4 pipeline.completed',
      'child 1 pipeline.started',
      'child 2 pipeline.completed',
    ]);

    // A second attempt of the stage starts `child-2`, found when the stage completes.
    await store
      .child('fan/branches/a/checks/child-2')
      .writeManifest(createTestManifest({ run_id: 'child-2' }));
    await store
      .child('fan/branches/a/checks/child-2')
      .appendEvents([event('child-2', 1, { type: 'pipeline.started', branchPath: base })]);
    const completed = event('top', 4, {
      type: 'stage.completed',
      nodeId: 'checks',
      branchPath: ['a'],
      status: 'success',
    });
    expect(typesOf(await follower.next([completed], { send: true }))).toEqual(['child-2 1 pipeline.started']);

    // A client reconnecting (send: false first) gets only what is written afterwards.
    const again = followChildRuns(store, undefined);
    expect(await again.next([...own, completed], { send: false })).toEqual([]);
    await store
      .child('fan/branches/a/checks/child-2')
      .appendEvents([event('child-2', 2, { type: 'pipeline.completed', branchPath: base })]);
    expect(typesOf(await again.next([], { send: true }))).toEqual(['child-2 2 pipeline.completed']);
  });
});
