/**
 * Memory returns after a burst (issue 34 §11): the run manager keeps in memory only the runs that are running or
 * waiting, plus a bounded number of those that ended (`endedRunsKept`); an older ended run is answered from its run
 * directory, as after a restart. Counts, not bytes or time: the regression this guards is a per-run entry never
 * removed.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@attractor/engine';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import { afterEach, describe, expect, it } from 'vitest';
import { RunManager, ServerOptionError } from '../src/index.js';
import { readFixture } from './test-server.js';

const chain = `digraph Chain {
  start [shape=Mdiamond]
  work [prompt="Do the work"]
  done [shape=Msquare]
  start -> work -> done
}`;

let manager: RunManager | undefined;
afterEach(async () => {
  await manager?.stopAll();
  manager = undefined;
});

async function createManager(endedRunsKept: number): Promise<RunManager> {
  const registry = createDefaultRegistry();
  return new RunManager({
    runsDir: await mkdtemp(join(tmpdir(), 'attractor-ended-runs-')),
    allowTools: false,
    createRegistry: () => registry,
    backendFactory: () => createSimulationBackend(),
    clock: systemClock,
    endedRunsKept,
  });
}

/** Waits until run `id` has ended (its live entry says so, or it has left memory). */
async function ended(target: RunManager, id: string): Promise<void> {
  await new Promise<void>((resolve) => {
    const check = () => {
      const live = target.live(id);
      if (live === undefined || live.ended) {
        unsubscribe();
        resolve();
      }
    };
    const unsubscribe = target.onRunChange((changed) => {
      if (changed === id) check();
    });
    check();
  });
}

describe('runs that ended leave memory', () => {
  it('keeps at most endedRunsKept ended runs; the others are read from their directories', async () => {
    manager = await createManager(2);
    const ids: string[] = [];
    for (let index = 0; index < 6; index++) {
      const { id } = await manager.start({ dot: chain, simulate: true });
      await ended(manager, id);
      ids.push(id);
    }
    expect(manager.memoryCounts()).toEqual({
      live: 0,
      ended: 2,
      pastTotals: 4,
      pastSummaries: 4,
      evicted: 4,
    });
    expect(manager.live(ids[0]!)).toBeUndefined();
    expect(manager.live(ids[5]!)?.ended).toBe(true);
    // Every run is still listed and described, the evicted ones from their files, and the gauge still counts them.
    const listed = await manager.list();
    expect(listed.map((run) => [run.id, run.state, run.live]).sort()).toEqual(
      ids.map((id) => [id, 'success', false]).sort(),
    );
    expect((await manager.summaryOf(ids[0]!)).state).toBe('success');
    expect(manager.countByState().success).toBe(6);

    // Archiving a run that left memory shows at once: once its cached summary hid the mark.
    expect((await manager.setArchived(ids[0]!, true)).archived).toBe(true);
    expect((await manager.summaryOf(ids[0]!)).archived).toBe(true);
    expect((await manager.list()).find((run) => run.id === ids[0])?.archived).toBe(true);
    expect((await manager.setArchived(ids[0]!, false)).archived).toBeUndefined();
  });

  it('never evicts a run waiting at a gate', async () => {
    manager = await createManager(1);
    const { id: waiting } = await manager.start({
      dot: await readFixture('review-gate.dot'),
      simulate: true,
    });
    for (let index = 0; index < 3; index++) {
      const { id } = await manager.start({ dot: chain, simulate: true });
      await ended(manager, id);
    }
    await new Promise<void>((resolve) => {
      const check = () => {
        if (manager!.summary(waiting).state === 'waiting') resolve();
      };
      manager!.onRunChange(check);
      check();
    });
    expect(manager.memoryCounts()).toMatchObject({ live: 1, ended: 1 });
    expect(manager.summary(waiting).state).toBe('waiting');
  });
});

describe('RunManager endedRunsKept', () => {
  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses endedRunsKept %s, naming the option and the allowed range',
    async (endedRunsKept) => {
      const creating = createManager(endedRunsKept);
      await expect(creating).rejects.toSatisfy(ServerOptionError.isInstance);
      await expect(creating).rejects.toMatchObject({
        code: 'SERVER_OPTION_INVALID',
        option: 'endedRunsKept',
        message: `The server option endedRunsKept is ${String(endedRunsKept)}, which is not allowed: use a whole number of 0 or more (default: 32).`,
      });
    },
  );

  it('keeps no ended run with endedRunsKept 0', async () => {
    manager = await createManager(0);
    const { id } = await manager.start({ dot: chain, simulate: true });
    await ended(manager, id);
    expect(manager.memoryCounts()).toMatchObject({ live: 0, ended: 0, evicted: 1 });
    expect((await manager.summaryOf(id)).state).toBe('success');
  });
});
