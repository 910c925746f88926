/**
 * Issue 18 "Semantics" with real processes: `attractor worker` processes on a real PostgreSQL queue and a shared run
 * store, one of them SIGKILLed in the middle of a stage (of an ordinary run; of a run its gate's deadline resumed).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PipelineEvent, RunCatalog } from '@attractor/engine';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { connectRunQueue, type RunQueue } from '@attractor/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { attractor, attractorWorker, FIXTURES, temporaryDirectory } from './helpers/cli.js';

const available = postgresAvailableForTests('attractor worker end-to-end tests');
const RELAY = join(FIXTURES, 'relay.dot');
/** A gate with a 1 s timeout whose default (`hold`) leads to a stage that waits for a `release` file in its workdir. */
const DEADLINE_GATE = join(FIXTURES, 'deadline-gate.dot');

interface CheckpointFile {
  readonly state: string;
  readonly completed_nodes: readonly string[];
  readonly context: Readonly<Record<string, unknown>>;
}

async function readCheckpointFile(runDir: string): Promise<CheckpointFile> {
  return JSON.parse(await readFile(join(runDir, 'checkpoint.json'), 'utf8')) as CheckpointFile;
}

/** Resolves once `read()` returns true, polling every 100 ms. */
async function until(
  read: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string | (() => string),
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await read())) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!available)('attractor worker on a shared queue and store (issue 18)', () => {
  let server: PostgresTestServer;
  let dir: string;
  let env: Record<string, string>;
  let catalog: RunCatalog;
  let queue: RunQueue;
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await temporaryDirectory('attractor-workers-');
    // One PostgreSQL for the queue (pg-boss) and the run store, as in compose.yaml.
    env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: server.url };
    catalog = createPostgresRunCatalog({ connectionString: server.url });
    // Only reads the queue's records (no supervision, the workers' job settings kept).
    queue = await connectRunQueue({ url: server.url });
  }, 120_000);
  afterAll(async () => {
    await queue?.close();
    await catalog?.close();
    await server?.stop();
  });
  const readCheckpoint = (runId: string) => catalog.open(runId).readCheckpoint();
  const readEvents = (runId: string): Promise<PipelineEvent[]> => catalog.open(runId).readEvents();

  const startWorker = () => attractorWorker(dir, env);

  it('20 runs through 3 workers, one SIGKILLed mid-stage: every run ends like an uninterrupted one and no completed stage runs twice', async () => {
    const reference = await attractor(['run', RELAY, '--simulate', '--logs-dir', 'reference', '-q'], {
      cwd: dir,
    });
    expect(reference.exitCode).toBe(0);
    const expected = await readCheckpointFile(join(dir, 'reference'));

    // The workers start first: enqueueing 20 runs (CLI processes, 4 at a time) overlaps with executing them.
    const workers = [startWorker(), startWorker(), startWorker()];
    const victim = workers[0]!;
    let victimLog = '';
    victim.stderr?.on('data', (chunk: Buffer) => {
      victimLog += chunk.toString();
    });
    const runIds: string[] = [];
    const enqueued = (async () => {
      for (let batch = 0; batch < 5; batch += 1) {
        const queued = await Promise.all(
          [0, 1, 2, 3].map(() => attractor(['run', RELAY, '--simulate', '--queue'], { cwd: dir, env })),
        );
        for (const result of queued) {
          expect(result.exitCode, result.stderr).toBe(0);
          runIds.push(result.stdout.trim());
        }
      }
    })();
    // Kill the first worker in the middle of stage b (a 1 s tool stage) of a run it executes.
    let lastOfVictim = '';
    await until(
      async () => {
        const started = [...victimLog.matchAll(/run (\S+): started \(start\)/g)].map((match) => match[1]!);
        const current = started.filter((runId) => !victimLog.includes(`run ${runId}: success`)).at(-1);
        if (current === undefined) return false;
        const events = await readEvents(current);
        if (!events.some((event) => event.type === 'stage.started' && event.nodeId === 'b')) return false;
        lastOfVictim = current;
        return true;
      },
      60_000,
      () => `the victim to reach stage b of a run; it printed: ${victimLog}`,
    );
    // At once: stage b has started, and waiting longer would only let it (and the run) finish first.
    const killedAt = Date.now();
    victim.kill('SIGKILL');
    await victim;
    expect(victimLog).not.toContain(`run ${lastOfVictim}: success`);
    await enqueued;
    expect(runIds).toHaveLength(20);

    await until(
      async () => {
        const states = await Promise.all(
          runIds.map((runId) => readCheckpoint(runId).then((checkpoint) => checkpoint?.state ?? '')),
        );
        return states.every((state) => state === 'success');
      },
      120_000,
      'all 20 runs to succeed',
    );
    const listed = await attractor(['runs', '--json', '--status', 'success'], { cwd: dir, env });
    const runs = JSON.parse(listed.stdout) as { runId: string; status: string; worker?: string }[];
    expect(runs.filter((run) => runIds.includes(run.runId))).toHaveLength(20);
    // Each listed run names the worker that ran it last, as the queue records it.
    for (const run of runs.filter((listed) => runIds.includes(listed.runId))) {
      const recorded = (await queue.readRun(run.runId))?.worker;
      expect(recorded, run.runId).toEqual(expect.any(String));
      expect(run.worker, run.runId).toBe(recorded);
    }
    for (const worker of workers.slice(1)) worker.kill('SIGTERM');
    const logs = await Promise.all(workers.slice(1));
    for (const log of logs) expect(log.exitCode).toBe(0);

    for (const runId of runIds) {
      const checkpoint = await readCheckpoint(runId);
      expect(checkpoint?.state).toBe('success');
      expect(checkpoint?.completed_nodes).toEqual(expected.completed_nodes);
      expect(checkpoint?.context).toEqual(expected.context);
      // Each tool stage appends its id when it completes: a completed stage never ran twice, and the stage the
      // SIGKILL interrupted ran again to completion exactly once (its process group was ended with the worker).
      expect(await readFile(join(dir, 'work', runId, 'trail.txt'), 'utf8'), runId).toBe('a\nb\nc\n');
    }
    // The interrupted run was resumed by another worker, after the kill, from its checkpoint.
    const resumedBy = logs
      .map((log) => log.stderr)
      .find((text) => text.includes(`run ${lastOfVictim}: resumed`));
    expect(resumedBy).toBeDefined();
    const events = await readEvents(lastOfVictim);
    const resumedEvent = events.find((event) => event.type === 'pipeline.started' && event.resumed);
    expect(resumedEvent).toBeDefined();
    expect(Date.parse(resumedEvent!.timestamp)).toBeGreaterThan(killedAt);
    // No stage completed twice in the audit trail.
    const completed = events.filter((event) => event.type === 'stage.completed').map((event) => event.nodeId);
    expect(completed).toEqual(expected.completed_nodes);
    // The store's run index lists all 20 as successful.
    const indexed = await catalog.listRuns({ status: 'success' });
    expect(indexed.filter((entry) => runIds.includes(entry.runId))).toHaveLength(20);
  }, 240_000);

  it("a worker SIGKILLed while its gate's deadline job runs the run on: another worker takes the run over and completes it through the default choice", async () => {
    const victim = startWorker();
    let victimLog = '';
    victim.stderr?.on('data', (chunk: Buffer) => {
      victimLog += chunk.toString();
    });
    let rescuer: ReturnType<typeof startWorker> | undefined;
    try {
      await until(
        () => victimLog.includes('at a time'),
        60_000,
        () => `the worker to start: ${victimLog}`,
      );
      const enqueued = await attractor(['run', DEADLINE_GATE, '--simulate', '--queue'], { cwd: dir, env });
      expect(enqueued.exitCode, enqueued.stderr).toBe(0);
      const runId = enqueued.stdout.trim();
      const workdir = join(dir, 'work', runId);
      // Nobody answers: the run suspends at the gate, and the victim (the only worker) takes the deadline job, which
      // applies the default and runs stage `hold`. That stage waits for a `release` file no one writes yet, so the
      // kill lands while the deadline job holds the run: its state is `running`, its job active on the victim.
      await until(
        async () =>
          victimLog.includes(`run ${runId}: resumed (timeout)`) &&
          (await readEvents(runId)).some(
            (event) => event.type === 'stage.started' && event.nodeId === 'hold',
          ) &&
          (await readFile(join(workdir, 'attempts.txt'), 'utf8').catch(() => '')) === 'hold\n',
        60_000,
        () => `the victim to resume the run at its deadline and start stage hold; it printed: ${victimLog}`,
      );
      expect(victimLog).toContain(`run ${runId}: waiting at gate "ask"`);
      expect((await queue.readRun(runId))?.state).toBe('running');
      const killedAt = Date.now();
      victim.kill('SIGKILL');
      await victim;

      // pg-boss fails the dead worker's deadline job (missed heartbeats) and retries it on the next worker. That retry
      // finds the run `running` with its gate's question unanswered: it resumes the run from its checkpoint, ending
      // the command the victim left running before it starts stage `hold` again. Only then is `release` written: the
      // victim's orphan, had it survived, would have written `trail.txt` once more.
      rescuer = startWorker();
      let rescuerLog = '';
      rescuer.stderr?.on('data', (chunk: Buffer) => {
        rescuerLog += chunk.toString();
      });
      await until(
        async () =>
          rescuerLog.includes(`run ${runId}: resumed (timeout)`) &&
          (await readFile(join(workdir, 'attempts.txt'), 'utf8').catch(() => '')) === 'hold\nhold\n',
        90_000,
        () => `the rescuer to take the run over and start stage hold again; it printed: ${rescuerLog}`,
      );
      await writeFile(join(workdir, 'release'), '');
      let state: string | undefined;
      await until(
        async () => {
          state = (await queue.readRun(runId))?.state;
          return state === 'success';
        },
        90_000,
        () => `the run to succeed; it is ${state}; the rescuer printed: ${rescuerLog}`,
      );
      expect(rescuerLog).toContain(`run ${runId}: resumed (timeout)`);
      expect(rescuerLog).not.toContain(`run ${runId}: nothing to do`);
      expect((await readCheckpoint(runId))?.state).toBe('success');
      // The gate's default took the `hold` branch; `prepare` and the gate did not run again, and the stage the kill
      // interrupted ran once more (its first attempt's process group was ended with the victim), to completion once.
      expect(await readFile(join(workdir, 'trail.txt'), 'utf8')).toBe('prepare\nhold\n');
      expect(await readFile(join(workdir, 'attempts.txt'), 'utf8')).toBe('hold\nhold\n');
      const events = await readEvents(runId);
      expect(events.filter((event) => event.type === 'stage.completed').map((event) => event.nodeId)).toEqual(
        ['start', 'prepare', 'ask', 'hold', 'done'],
      );
      const timeouts = events.filter((event) => event.type === 'interview.timeout');
      expect(timeouts).toHaveLength(1);
      expect(timeouts[0]).toMatchObject({ stage: 'ask', answer: { value: 'H' } });
      expect(events.filter((event) => event.type === 'interview.completed')).toEqual([]);
      // Three legs: the start, the deadline on the victim, and the takeover after the kill.
      const legs = events.filter((event) => event.type === 'pipeline.started');
      expect(legs).toHaveLength(3);
      expect(Date.parse(legs[2]!.timestamp)).toBeGreaterThan(killedAt);
      const listed = await attractor(['runs', '--json', '--status', 'success'], { cwd: dir, env });
      expect((JSON.parse(listed.stdout) as { runId: string }[]).map((run) => run.runId)).toContain(runId);
    } finally {
      victim.kill('SIGKILL');
      rescuer?.kill('SIGTERM');
      await victim;
      if (rescuer !== undefined) expect((await rescuer).exitCode).toBe(0);
    }
  }, 240_000);
});
