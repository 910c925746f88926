/**
 * Issue 18 "Semantics" with real processes: `attractor worker` processes on a real PostgreSQL queue and a shared run
 * store, one of them SIGKILLed in the middle of a stage.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { attractor, FIXTURES, temporaryDirectory } from './helpers/cli.js';

const available = postgresAvailableForTests('attractor worker end-to-end tests');
const RELAY = join(FIXTURES, 'relay.dot');

interface CheckpointFile {
  readonly state: string;
  readonly completed_nodes: readonly string[];
  readonly context: Readonly<Record<string, unknown>>;
}

async function readCheckpoint(runDir: string): Promise<CheckpointFile> {
  return JSON.parse(await readFile(join(runDir, 'checkpoint.json'), 'utf8')) as CheckpointFile;
}

/** Resolves once `read()` returns true, polling every 100 ms. */
async function until(read: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await read())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!available)('attractor worker on a shared queue and store (issue 18)', () => {
  let server: PostgresTestServer;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await temporaryDirectory('attractor-workers-');
    env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: join(dir, 'runs') };
  });
  afterAll(async () => {
    await server?.stop();
  });

  const startWorker = () =>
    attractor(
      [
        'worker',
        '--workdir-root',
        join(dir, 'work'),
        '--heartbeat-seconds',
        '10',
        '--supervise-seconds',
        '1',
      ],
      { cwd: dir, env },
    );

  it('20 runs through 3 workers, one SIGKILLed mid-stage: every run ends like an uninterrupted one and no completed stage runs twice', async () => {
    const reference = await attractor(['run', RELAY, '--simulate', '--logs-dir', 'reference', '-q'], {
      cwd: dir,
    });
    expect(reference.exitCode).toBe(0);
    const expected = await readCheckpoint(join(dir, 'reference'));

    // The workers start first: enqueueing 20 runs (CLI processes, 4 at a time) overlaps with executing them.
    const workers = [startWorker(), startWorker(), startWorker()];
    const runIds: string[] = [];
    for (let batch = 0; batch < 5; batch += 1) {
      const queued = await Promise.all(
        [0, 1, 2, 3].map(() => attractor(['run', RELAY, '--simulate', '--queue'], { cwd: dir, env })),
      );
      for (const result of queued) {
        expect(result.exitCode, result.stderr).toBe(0);
        runIds.push(result.stdout.trim());
      }
    }
    const victim = workers[0]!;
    let victimLog = '';
    victim.stderr?.on('data', (chunk: Buffer) => {
      victimLog += chunk.toString();
    });
    // Kill the first worker in the middle of stage b (a 1 s tool stage) of its second run.
    await until(
      () => (victimLog.match(/: started \(start\)/g) ?? []).length >= 2,
      30_000,
      'the victim to start 2 runs',
    );
    const lastOfVictim = [...victimLog.matchAll(/run (\S+): started \(start\)/g)].map(
      (match) => match[1]!,
    )[1]!;
    await until(
      async () =>
        (await readFile(join(dir, 'runs', lastOfVictim, 'events.jsonl'), 'utf8').catch(() => '')).includes(
          '"type":"stage.started","nodeId":"b"',
        ),
      30_000,
      "stage b of the victim's run to start",
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const killedAt = Date.now();
    victim.kill('SIGKILL');
    await victim;
    expect(victimLog).not.toContain(`run ${lastOfVictim}: success`);

    await until(
      async () => {
        const states = await Promise.all(
          runIds.map((runId) =>
            readCheckpoint(join(dir, 'runs', runId)).then(
              (checkpoint) => checkpoint.state,
              () => '',
            ),
          ),
        );
        return states.every((state) => state === 'success');
      },
      120_000,
      'all 20 runs to succeed',
    );
    const listed = await attractor(['runs', '--json', '--status', 'success'], { cwd: dir, env });
    const runs = JSON.parse(listed.stdout) as { runId: string; status: string }[];
    expect(runs.filter((run) => runIds.includes(run.runId))).toHaveLength(20);
    for (const worker of workers.slice(1)) worker.kill('SIGTERM');
    const logs = await Promise.all(workers.slice(1));
    for (const log of logs) expect(log.exitCode).toBe(0);

    for (const runId of runIds) {
      const checkpoint = await readCheckpoint(join(dir, 'runs', runId));
      expect(checkpoint.state).toBe('success');
      expect(checkpoint.completed_nodes).toEqual(expected.completed_nodes);
      expect(checkpoint.context).toEqual(expected.context);
      // Each tool stage appends its id when it completes: a completed stage never ran twice, and the stage the
      // SIGKILL interrupted ran again to completion exactly once (its process group was ended with the worker).
      expect(await readFile(join(dir, 'work', runId, 'trail.txt'), 'utf8'), runId).toBe('a\nb\nc\n');
    }
    // The interrupted run was resumed by another worker, after the kill, from its checkpoint.
    const resumedBy = logs
      .map((log) => log.stderr)
      .find((text) => text.includes(`run ${lastOfVictim}: resumed`));
    expect(resumedBy).toBeDefined();
    const events = (await readFile(join(dir, 'runs', lastOfVictim, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { type: string; timestamp: string; nodeId?: string; resumed?: boolean },
      );
    const resumedEvent = events.find((event) => event.type === 'pipeline.started' && event.resumed === true);
    expect(resumedEvent).toBeDefined();
    expect(Date.parse(resumedEvent!.timestamp)).toBeGreaterThan(killedAt);
    // No stage completed twice in the audit trail.
    const completed = events.filter((event) => event.type === 'stage.completed').map((event) => event.nodeId);
    expect(completed).toEqual(expected.completed_nodes);
    expect((await readdir(join(dir, 'runs'))).filter((name) => runIds.includes(name))).toHaveLength(20);
  }, 240_000);
});
