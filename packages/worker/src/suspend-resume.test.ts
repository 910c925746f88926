import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileRunCatalog, type PipelineEvent } from '@attractor/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directoryCatalog,
  postgresAvailableForTests,
  prepareSimulated,
  startPostgresServer,
  tempDir,
} from '../test/worker-fixtures.js';
import {
  connectRunQueue,
  type RunningWorker,
  type RunQueue,
  startWorker,
  type WorkerEvent,
} from './index.js';

const available = postgresAvailableForTests('@attractor/worker gate and lock tests');

const gate = (attributes = '') => `digraph gate {
  start [shape=Mdiamond]
  ask [shape=hexagon, label="Ship it?"${attributes}]
  ship [shape=parallelogram, tool_command="echo ship >> trail.txt"]
  hold [shape=parallelogram, tool_command="echo hold >> trail.txt"]
  done [shape=Msquare]
  start -> ask
  ask -> ship [label="[S] Ship"]
  ask -> hold [label="[H] Hold"]
  ship -> done
  hold -> done
}`;

describe.skipIf(!available)('a waiting gate holds no worker; the run lock (issue 18 "Semantics")', () => {
  let server: Awaited<ReturnType<typeof startPostgresServer>>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let queue: RunQueue;
  const workers: RunningWorker[] = [];
  const runsDir = () => join(dir.path, 'runs');
  const begin = async (workerId: string, onEvent?: (event: WorkerEvent) => void) => {
    const worker = await startWorker({
      catalog: directoryCatalog(runsDir()),
      queueUrl: server.url,
      workdirRoot: join(dir.path, 'work'),
      prepare: prepareSimulated,
      pollingIntervalSeconds: 0.5,
      workerId,
      ...(onEvent === undefined ? {} : { onEvent }),
    });
    workers.push(worker);
    return worker;
  };
  const events = async (runId: string): Promise<PipelineEvent[]> =>
    (await readFile(join(runsDir(), runId, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as PipelineEvent);
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await tempDir('gates');
    queue = await connectRunQueue({ url: server.url });
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await queue?.close();
    await server?.stop();
    await dir?.cleanup();
  });

  it('suspends a run at an unanswered gate, frees the worker, and a different worker completes it with the answer', async () => {
    const asker = await begin('asker');
    const runId = await queue.enqueueRun({ source: gate(), graphName: 'gate' });
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('waiting');
    await expect.poll(() => asker.running(), { timeout: 60_000 }).toEqual([]);
    const waiting = await queue.readRun(runId);
    expect(waiting?.question).toMatchObject({ stage: 'ask', text: 'Ship it?', type: 'multiple_choice' });
    expect(waiting?.askedBy).toBe('asker');
    // The log ends with the suspension at the open question, not with a cancellation: the run index shows it waiting.
    const paused = await events(runId);
    expect(paused.at(-2)?.type).toBe('interview.started');
    expect(paused.at(-1)).toMatchObject({
      type: 'pipeline.suspended',
      stage: 'ask',
      question: { id: waiting?.question?.id, stage: 'ask', text: 'Ship it?' },
    });
    expect(paused.at(-1)).not.toHaveProperty('deadlineAt');
    expect(paused.filter((event) => event.type === 'pipeline.cancelled')).toEqual([]);
    expect(
      (await createFileRunCatalog(runsDir()).listRuns({})).find((run) => run.runId === runId)?.status,
    ).toBe('waiting');
    await asker.stop();

    const finisher = await begin('finisher');
    await expect(queue.answerRun({ runId, text: 'nope' })).rejects.toThrow(
      /"nope" is none of the options: S/,
    );
    await queue.answerRun({ runId, text: 'ship' });
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
    const done = await queue.readRun(runId);
    expect(done?.askedBy).toBe('asker');
    expect(done?.worker).toBe(finisher.id);
    expect(await readFile(join(dir.path, 'work', runId, 'trail.txt'), 'utf8')).toBe('ship\n');
    const trail = await events(runId);
    expect(trail.filter((event) => event.type === 'stage.completed').map((event) => event.nodeId)).toEqual([
      'start',
      'ask',
      'ship',
      'done',
    ]);
    expect(trail.filter((event) => event.type === 'pipeline.cancelled')).toEqual([]);
    await finisher.stop();
  }, 120_000);

  it("applies human.default_choice at the gate's deadline although no worker ran when it passed", async () => {
    const asker = await begin('deadline-asker');
    const runId = await queue.enqueueRun({
      // Far enough for the asker to stop before the deadline on a loaded machine.
      source: gate(', timeout="10s", "human.default_choice"="hold"'),
      graphName: 'gate',
    });
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('waiting');
    const deadlineAt = (await queue.readRun(runId))?.deadlineAt;
    expect(deadlineAt).toBeDefined();
    await asker.stop();
    // Nobody works while the deadline passes; a worker started later applies the default.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Date.parse(deadlineAt!) - Date.now()) + 500),
    );
    await begin('deadline-finisher');
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
    expect(await readFile(join(dir.path, 'work', runId, 'trail.txt'), 'utf8')).toBe('hold\n');
    const trail = await events(runId);
    expect(trail.find((event) => event.type === 'pipeline.suspended')).toMatchObject({
      stage: 'ask',
      deadlineAt,
    });
    // The gate timed out while no worker held the run: logged as a timeout (as in a live run), with the default.
    const timeout = trail.find((event) => event.type === 'interview.timeout');
    expect(timeout).toMatchObject({ stage: 'ask', answer: { value: 'H' } });
    expect(timeout?.type === 'interview.timeout' && timeout.durationMs).toBeGreaterThanOrEqual(10_000);
    expect(trail.filter((event) => event.type === 'interview.completed')).toEqual([]);
  }, 120_000);

  it('a deadline job that finds its run `running` (the worker that claimed it died) resumes the run; one for a gate the run left does nothing', async () => {
    // No worker of the tests before may take the deadline job: this one stands for a worker that died holding it.
    for (const worker of workers) await worker.stop();
    const asker = await begin('claimer-asker');
    const runId = await queue.enqueueRun({
      // Far enough for the asker to stop before the deadline on a loaded machine.
      source: gate(', timeout="10s", "human.default_choice"="hold"'),
      graphName: 'gate',
    });
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('waiting');
    const { question, deadlineAt } = (await queue.readRun(runId))!;
    // Stopped well before the deadline: the asker never takes the deadline job.
    await asker.stop();
    expect(Date.now()).toBeLessThan(Date.parse(deadlineAt!));
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Date.parse(deadlineAt!) - Date.now()) + 500),
    );
    // What a worker that took the deadline job and died left: the run `running` under it, the question unanswered,
    // and the deadline job to run again (pg-boss's retry carries the same data as the job still queued here).
    expect(await queue.claimRun({ runId, workerId: 'dead-claimer' })).toBe(true);
    const seen: WorkerEvent[] = [];
    const rescuer = await begin('claimer-rescuer', (event) => seen.push(event));
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
    expect((await queue.readRun(runId))?.worker).toBe(rescuer.id);
    expect(seen.find((event) => event.runId === runId)).toEqual({
      type: 'run.started',
      runId,
      resumed: true,
      trigger: 'timeout',
    });
    expect(await readFile(join(dir.path, 'work', runId, 'trail.txt'), 'utf8')).toBe('hold\n');
    const trail = await events(runId);
    expect(trail.filter((event) => event.type === 'interview.timeout')).toMatchObject([
      { stage: 'ask', question: { id: question?.id }, answer: { value: 'H' } },
    ]);

    // A deadline job of that (long passed) gate, delivered now that the run waits at another gate, changes nothing.
    const next = await queue.enqueueRun({
      source: `digraph twice {
        start [shape=Mdiamond]
        first [shape=hexagon, label="First?", timeout="1h", "human.default_choice"="second"]
        second [shape=hexagon, label="Second?", timeout="1h", "human.default_choice"="done"]
        done [shape=Msquare]
        start -> first
        first -> second [label="[G] Go"]
        second -> done [label="[G] Go"]
      }`,
      graphName: 'twice',
    });
    await expect
      .poll(async () => (await queue.readRun(next))?.question?.stage, { timeout: 60_000 })
      .toBe('first');
    const first = (await queue.readRun(next))?.question?.id;
    await queue.answerRun({ runId: next, text: 'G' });
    await expect
      .poll(async () => (await queue.readRun(next))?.question?.stage, { timeout: 60_000 })
      .toBe('second');
    await expect.poll(async () => (await queue.readRun(next))?.state, { timeout: 60_000 }).toBe('waiting');
    await queue.sendJob({
      runId: next,
      trigger: 'timeout',
      ...(first === undefined ? {} : { questionId: first }),
    });
    await expect
      .poll(() => seen.filter((event) => event.runId === next && event.type === 'run.skipped'), {
        timeout: 60_000,
      })
      .toEqual([{ type: 'run.skipped', runId: next, reason: 'the question of this deadline was answered' }]);
    expect(await queue.readRun(next)).toMatchObject({ state: 'waiting', question: { stage: 'second' } });
    expect((await events(next)).filter((event) => event.type === 'interview.timeout')).toEqual([]);
  }, 120_000);

  it('never executes a run whose lock another runner holds; runs it once the lock is free', async () => {
    const runId = await queue.enqueueRun({
      source: `digraph once { start [shape=Mdiamond]; work [shape=parallelogram, tool_command="echo work >> trail.txt"]; done [shape=Msquare]; start -> work -> done }`,
      graphName: 'once',
    });
    // Another runner (e.g. a worker on another machine that pg-boss thought dead) holds the run.
    const held = await directoryCatalog(runsDir())
      .open(runId)
      .acquireLock({ since: new Date().toISOString() });
    // The worker tries the run, finds the lock taken and hands the run back for later, touching nothing.
    let requeued: (() => void) | undefined;
    const lockedOut = new Promise<void>((resolve) => {
      requeued = resolve;
    });
    await begin('locked-out', (event) => {
      if (event.type === 'run.requeued' && event.runId === runId) requeued?.();
    });
    await lockedOut;
    await expect(readFile(join(dir.path, 'work', runId, 'trail.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect((await queue.readRun(runId))?.state).not.toBe('success');
    await held.release();
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
    expect(await readFile(join(dir.path, 'work', runId, 'trail.txt'), 'utf8')).toBe('work\n');
  }, 120_000);

  it('cancelRun stops a run on the worker executing it', async () => {
    await begin('cancel-target');
    const runId = await queue.enqueueRun({
      source: `digraph slow { start [shape=Mdiamond]; nap [shape=parallelogram, tool_command="sleep 600"]; done [shape=Msquare]; start -> nap -> done }`,
      graphName: 'slow',
    });
    await expect
      .poll(
        async () =>
          (await events(runId).catch(() => [])).some(
            (event) => event.type === 'stage.started' && event.nodeId === 'nap',
          ),
        {
          timeout: 60_000,
        },
      )
      .toBe(true);
    expect(await queue.cancelRun({ runId, reason: 'stopped by a test' })).toBe('running');
    // The stage would sleep far longer than this wait: ending cancelled means the cancel stopped it.
    await expect
      .poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000, interval: 100 })
      .toBe('cancelled');
    expect((await events(runId)).at(-1)).toMatchObject({
      type: 'pipeline.cancelled',
      reason: 'stopped by a test',
    });
  }, 120_000);
});
