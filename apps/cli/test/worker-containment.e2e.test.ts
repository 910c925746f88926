/**
 * Issue 34 "Workers" with real processes: `attractor worker` on a real PostgreSQL queue and store. A poison run (a
 * stage that kills its executor) costs only its own crashes; SIGTERM drains (running stages finish, their runs go back
 * at their checkpoint), a second SIGTERM hands back at once; the worker waits for the store and queue at start-up and
 * says once when they go away and once when they are back.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server, Socket } from 'node:net';
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
import { stderrOf, until } from './helpers/until.js';

const available = postgresAvailableForTests('attractor worker containment tests');

/** Three tool stages of one second each; each appends its id to trail.txt in the run's workdir. */
const ORDINARY = `digraph ordinary {
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="sleep 1; echo a >> trail.txt"]
  b [shape=parallelogram, tool_command="sleep 1; echo b >> trail.txt"]
  c [shape=parallelogram, tool_command="sleep 1; echo c >> trail.txt"]
  done [shape=Msquare]
  start -> a -> b -> c -> done
}`;

/** A stage that kills the process running it (its executor, or a worker that runs stages itself). */
const POISON = `digraph poison {
  start [shape=Mdiamond]
  warm [shape=parallelogram, tool_command="sleep 0.3"]
  poison [shape=parallelogram, tool_command="sleep 0.3; kill -9 $PPID; sleep 30"]
  done [shape=Msquare]
  start -> warm -> poison -> done
}`;

/** A run whose middle stage takes `seconds`; the stages append their ids to trail.txt. */
const slowMiddle = (seconds: number) => `digraph drain {
  start [shape=Mdiamond]
  first [shape=parallelogram, tool_command="echo first >> trail.txt"]
  slow [shape=parallelogram, tool_command="sleep ${seconds}; echo slow >> trail.txt"]
  after [shape=parallelogram, tool_command="echo after >> trail.txt"]
  done [shape=Msquare]
  start -> first -> slow -> after -> done
}`;

describe.skipIf(!available)('attractor worker: crash containment, drain, services (issue 34)', () => {
  let server: PostgresTestServer;
  let dir: string;
  let env: Record<string, string>;
  let catalog: RunCatalog;
  let queue: RunQueue;
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await temporaryDirectory('attractor-containment-');
    env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: server.url };
    catalog = createPostgresRunCatalog({ connectionString: server.url });
    queue = await connectRunQueue({ url: server.url });
  }, 120_000);
  afterAll(async () => {
    await queue?.close();
    await catalog?.close();
    await server?.stop();
  });
  const readEvents = (runId: string): Promise<PipelineEvent[]> => catalog.open(runId).readEvents();
  const trail = (runId: string) => readFile(join(dir, 'work', runId, 'trail.txt'), 'utf8').catch(() => '');
  const started = (events: readonly PipelineEvent[], nodeId: string) =>
    events.filter((event) => event.type === 'stage.started' && event.nodeId === nodeId).length;

  it('a poison run beside 6 ordinary runs on one worker: the ordinary ones run every stage exactly once, the poison run fails after 3 crashes with the reason', async () => {
    const worker = attractorWorker(dir, env, ['--concurrency', '7', '--max-crashes', '3']);
    const log = stderrOf(worker);
    try {
      await until(
        () => log.text.includes('at a time'),
        60_000,
        () => `the worker to start: ${log.text}`,
      );
      const poisonId = await queue.enqueueRun({ source: POISON, graphName: 'poison' });
      const ordinaryIds: string[] = [];
      for (let index = 0; index < 6; index += 1) {
        ordinaryIds.push(await queue.enqueueRun({ source: ORDINARY, graphName: 'ordinary' }));
      }
      await until(
        async () => {
          const states = await Promise.all(
            [poisonId, ...ordinaryIds].map(async (runId) => (await queue.readRun(runId))?.state),
          );
          return states[0] === 'fail' && states.slice(1).every((state) => state === 'success');
        },
        180_000,
        () => `the poison run to fail and the others to succeed; the worker printed: ${log.text}`,
      );
      for (const runId of ordinaryIds) {
        const events = await readEvents(runId);
        // One leg (never resumed), every stage started once and completed once.
        expect(
          events.filter((event) => event.type === 'pipeline.started'),
          runId,
        ).toHaveLength(1);
        for (const stage of ['a', 'b', 'c']) expect(started(events, stage), `${runId} ${stage}`).toBe(1);
        expect(await trail(runId)).toBe('a\nb\nc\n');
        expect((await queue.readRun(runId))?.crashes).toBeUndefined();
      }
      const poisoned = await queue.readRun(poisonId);
      expect(poisoned?.crashes).toBe(3);
      expect(poisoned?.error).toBe(
        `the run's executor process was killed by SIGKILL during stage "poison"; the run crashed its executor 3 times (the limit is 3)`,
      );
      // Its event log ends failed with the same reason (appended just after the queue's row is marked); the stage
      // before the poison ran once.
      await until(
        async () => (await readEvents(poisonId)).at(-1)?.type === 'pipeline.failed',
        30_000,
        "the poison run's pipeline.failed",
      );
      const events = await readEvents(poisonId);
      expect(events.at(-1)).toMatchObject({ type: 'pipeline.failed', error: poisoned?.error });
      expect(started(events, 'warm')).toBe(1);
      expect(started(events, 'poison')).toBe(3);
      expect(log.text).toContain(`run ${poisonId}: handed back to the queue (the run's executor process`);
      expect(log.text).toContain('crash 2 of 3');
    } finally {
      worker.kill('SIGTERM');
      expect((await worker).exitCode).toBe(0);
    }
  }, 300_000);

  it('a run that runs its executor out of memory (--executor-memory) fails with that reason; the run beside it succeeds once', async () => {
    const worker = attractorWorker(dir, env, [
      '--concurrency',
      '2',
      '--max-crashes',
      '2',
      '--executor-memory',
      '64',
      '--config',
      join(FIXTURES, 'worker-plugins', 'attractor.config.mjs'),
    ]);
    const log = stderrOf(worker);
    try {
      await until(
        () => log.text.includes('at a time'),
        60_000,
        () => `the worker to start: ${log.text}`,
      );
      const hogId = await queue.enqueueRun({
        source: await readFile(join(FIXTURES, 'worker-plugins', 'hog.dot'), 'utf8'),
        graphName: 'hog',
      });
      const ordinaryId = await queue.enqueueRun({ source: ORDINARY, graphName: 'ordinary' });
      await until(
        async () =>
          (await queue.readRun(hogId))?.state === 'fail' &&
          (await queue.readRun(ordinaryId))?.state === 'success',
        180_000,
        () => `the hog run to fail and the other to succeed; the worker printed: ${log.text}`,
      );
      expect((await queue.readRun(hogId))?.error).toBe(
        `the run's executor process ran out of memory during stage "hog"; the run crashed its executor 2 times (the limit is 2)`,
      );
      const events = await readEvents(ordinaryId);
      expect(events.filter((event) => event.type === 'pipeline.started')).toHaveLength(1);
      expect(await trail(ordinaryId)).toBe('a\nb\nc\n');
    } finally {
      worker.kill('SIGTERM');
      expect((await worker).exitCode).toBe(0);
    }
  }, 300_000);

  it('SIGTERM drains: the running stage finishes and is checkpointed, the run goes back to the queue, and the next worker goes on with the next stage', async () => {
    const first = attractorWorker(dir, env);
    const firstLog = stderrOf(first);
    await until(
      () => firstLog.text.includes('at a time'),
      60_000,
      () => `the worker to start: ${firstLog.text}`,
    );
    const runId = await queue.enqueueRun({ source: slowMiddle(3), graphName: 'drain' });
    await until(
      async () => started(await readEvents(runId), 'slow') === 1,
      60_000,
      () => `stage slow to start; the worker printed: ${firstLog.text}`,
    );
    first.kill('SIGTERM');
    const stopped = await first;
    expect(stopped.exitCode).toBe(0);
    expect(firstLog.text).toContain('draining: running stages may finish within 30 s');
    // The stage completed under the draining worker; the run waits in the queue at the checkpoint after it.
    expect(await trail(runId)).toBe('first\nslow\n');
    expect((await queue.readRun(runId))?.state).toBe('queued');
    expect((await catalog.open(runId).readCheckpoint())?.completed_nodes).toEqual(['start', 'first', 'slow']);
    expect(firstLog.text).toContain(`run ${runId}: handed back to the queue`);

    const second = attractorWorker(dir, env);
    try {
      await until(
        async () => (await queue.readRun(runId))?.state === 'success',
        90_000,
        'the run to succeed',
      );
    } finally {
      second.kill('SIGTERM');
      expect((await second).exitCode).toBe(0);
    }
    expect(await trail(runId)).toBe('first\nslow\nafter\n');
    expect(started(await readEvents(runId), 'slow')).toBe(1);
  }, 240_000);

  it('SIGTERM with --drain-seconds 1: a stage still running at the deadline is handed back, the worker exits 0, and another worker finishes the run', async () => {
    // The slow stage sleeps far longer than the test may take on its first attempt, and ends at once on the next.
    const source = `digraph deadline {
  start [shape=Mdiamond]
  first [shape=parallelogram, tool_command="echo first >> trail.txt"]
  slow [shape=parallelogram, tool_command="if [ -e slept ]; then echo slow >> trail.txt; else touch slept; sleep 600; fi"]
  after [shape=parallelogram, tool_command="echo after >> trail.txt"]
  done [shape=Msquare]
  start -> first -> slow -> after -> done
}`;
    const worker = attractorWorker(dir, env, ['--drain-seconds', '1']);
    const log = stderrOf(worker);
    await until(
      () => log.text.includes('at a time'),
      60_000,
      () => `the worker to start: ${log.text}`,
    );
    const runId = await queue.enqueueRun({ source, graphName: 'deadline' });
    await until(
      async () => started(await readEvents(runId), 'slow') === 1,
      60_000,
      () => `stage slow to start; the worker printed: ${log.text}`,
    );
    worker.kill('SIGTERM');
    const stopped = await worker;
    expect(stopped.exitCode).toBe(0);
    expect(log.text).toContain('draining: running stages may finish within 1 s');
    expect(log.text).toContain(`run ${runId}: handed back to the queue`);
    expect(await trail(runId)).toBe('first\n');
    expect((await queue.readRun(runId))?.state).toBe('queued');
    expect((await catalog.open(runId).readCheckpoint())?.completed_nodes).toEqual(['start', 'first']);

    const next = attractorWorker(dir, env);
    try {
      await until(
        async () => (await queue.readRun(runId))?.state === 'success',
        90_000,
        'the run to succeed on the next worker',
      );
    } finally {
      next.kill('SIGTERM');
      expect((await next).exitCode).toBe(0);
    }
    // The interrupted stage ran again on the next worker; the stage before it did not.
    expect(await trail(runId)).toBe('first\nslow\nafter\n');
    const events = await readEvents(runId);
    expect(started(events, 'first')).toBe(1);
    expect(started(events, 'slow')).toBe(2);
  }, 240_000);

  it('a second SIGTERM while draining hands the run back at once; its stage runs again elsewhere', async () => {
    const worker = attractorWorker(dir, env);
    const log = stderrOf(worker);
    await until(
      () => log.text.includes('at a time'),
      60_000,
      () => `the worker to start: ${log.text}`,
    );
    const runId = await queue.enqueueRun({ source: slowMiddle(120), graphName: 'drain' });
    await until(
      async () => started(await readEvents(runId), 'slow') === 1,
      60_000,
      () => `stage slow to start; the worker printed: ${log.text}`,
    );
    worker.kill('SIGTERM');
    await until(
      () => log.text.includes('draining'),
      30_000,
      () => `the drain to begin: ${log.text}`,
    );
    worker.kill('SIGTERM');
    const stopped = await worker;
    expect(stopped.exitCode).toBe(0);
    expect(log.text).toContain('its runs go back to the queue now');
    expect(await trail(runId)).toBe('first\n');
    expect((await queue.readRun(runId))?.state).toBe('queued');
    expect((await catalog.open(runId).readCheckpoint())?.completed_nodes).toEqual(['start', 'first']);
    // Leave nothing queued for the next test: it would run the 120 s stage.
    await queue.cancelRun({ runId });
  }, 180_000);

  it('waits for the store and queue at start-up, then says once when they go away and once when they are back', async () => {
    const proxy = await startTcpProxy(server.port);
    const through = server.url.replace(`:${server.port}/`, `:${proxy.port}/`);
    const proxied = { ATTRACTOR_QUEUE_URL: through, ATTRACTOR_STORE_URL: through };
    await proxy.down();
    const worker = attractorWorker(dir, proxied, ['--wait-for-services', '300']);
    const log = stderrOf(worker);
    try {
      await until(
        () =>
          log.text.includes('the run store is not answering') && log.text.includes('waiting for it until'),
        60_000,
        () => `the worker to say it waits: ${log.text}`,
      );
      expect(log.text).not.toContain('at a time');
      await proxy.up();
      await until(
        () => log.text.includes('at a time'),
        90_000,
        () => `the worker to start: ${log.text}`,
      );
      expect(log.text).toContain('the run store is back');
      const before = await queue.enqueueRun({ source: slowMiddle(0), graphName: 'services' });
      await until(async () => (await queue.readRun(before))?.state === 'success', 90_000, 'the first run');

      const mark = log.text.length;
      await proxy.down();
      await until(
        () =>
          log.text.slice(mark).includes('the run queue is not answering') &&
          log.text.slice(mark).includes('the run store is not answering'),
        60_000,
        () => `the worker to notice: ${log.text.slice(mark)}`,
      );
      await proxy.up();
      await until(
        () =>
          log.text.slice(mark).includes('the run queue is back') &&
          log.text.slice(mark).includes('the run store is back'),
        90_000,
        () => `the worker to say they are back: ${log.text.slice(mark)}`,
      );
      const outage = log.text.slice(mark);
      expect(outage.match(/the run queue is not answering/g)).toHaveLength(1);
      expect(outage.match(/the run store is not answering/g)).toHaveLength(1);
      const after = await queue.enqueueRun({ source: slowMiddle(0), graphName: 'services' });
      await until(
        async () => (await queue.readRun(after))?.state === 'success',
        120_000,
        'a run after the outage',
      );
    } finally {
      worker.kill('SIGTERM');
      expect((await worker).exitCode).toBe(0);
      await proxy.close();
    }
  }, 360_000);

  it('gives up at start-up after --wait-for-services with the reason, naming the setting', async () => {
    const proxy = await startTcpProxy(server.port);
    await proxy.down();
    const url = server.url.replace(`:${server.port}/`, `:${proxy.port}/`);
    const result = await attractor(
      ['worker', '--wait-for-services', '2', '--workdir-root', join(dir, 'work')],
      {
        cwd: dir,
        env: { ATTRACTOR_QUEUE_URL: url, ATTRACTOR_STORE_URL: url },
      },
    );
    await proxy.close();
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('the run store is not answering');
    expect(result.stderr).toContain('(--store / ATTRACTOR_STORE_URL) is not available');
    expect(result.stderr).not.toContain(server.password);
  }, 120_000);
});

/** A TCP proxy on 127.0.0.1 to `targetPort` that can be taken down (connections cut, refused) and brought back. */
async function startTcpProxy(targetPort: number): Promise<{
  readonly port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const up = async () => {
    server = createServer((client) => {
      const upstream = new Socket();
      sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      upstream.connect(targetPort, '127.0.0.1', () => {
        client.pipe(upstream).pipe(client);
      });
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  };
  const down = async () => {
    const current = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (current !== undefined) await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  await up();
  return {
    get port() {
      return port;
    },
    down,
    up,
    close: down,
  };
}
