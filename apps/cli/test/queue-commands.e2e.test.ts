/**
 * The CLI on a shared queue and store (issue 18): `run --queue --wait`, `answer`, `runs`, `inspect <run id>`, and
 * the one-line errors for a missing, wrong or unreachable queue.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { attractor, attractorWorker, FIXTURES, temporaryDirectory, waitForOutput } from './helpers/cli.js';

const GATE = join(FIXTURES, 'ship-gate.dot');
/**
 * A pipeline whose `work` fails the first time in its workdir, so that a loop_restart edge restarts the run at it;
 * the restarted run fails at `check` until the workdir holds an `ok` file (then `check` appends to `trail.txt`).
 */
const RESTART_ONCE = `digraph again {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  work  [shape=parallelogram, tool_command="test -f once || { touch once; exit 1; }"]
  check [shape=parallelogram, tool_command="test -f ok && echo checked >> trail.txt"]
  start -> work
  work -> work [condition="outcome=fail", loop_restart=true]
  work -> check [condition="outcome=success"]
  check -> exit
}
`;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 1;
}

describe('queue settings: errors name the setting and the fix', () => {
  it('refuses --queue without a URL anywhere', async () => {
    const result = await attractor(['run', GATE, '--simulate', '--queue']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('pass --queue <url> or set ATTRACTOR_QUEUE_URL');
  });

  it('refuses a queue URL that is not PostgreSQL', async () => {
    const result = await attractor(['run', GATE, '--simulate', '--queue', 'redis://127.0.0.1:6379']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('The queue URL (--queue / ATTRACTOR_QUEUE_URL) uses "redis:"');
  });

  it('refuses --answer and --auto-approve for a queued run, which a worker executes (they would be dropped)', async () => {
    const queue = 'postgres://attractor@127.0.0.1:1/attractor';
    const answered = await attractor(['run', GATE, '--simulate', '--queue', queue, '--answer', 'P']);
    expect(answered.exitCode).toBe(2);
    expect(answered.stderr).toContain('--answer does not reach a queued run');
    expect(answered.stderr).toContain('answer <run> <key>');
    const approved = await attractor(['resume', 'some-run', '--queue', queue, '--auto-approve']);
    expect(approved.exitCode).toBe(2);
    expect(approved.stderr).toContain('--auto-approve does not reach a queued run');
  });

  it('says when the queue server is down, without the password', async () => {
    const port = await closedPort();
    const result = await attractor(['runs'], {
      env: { ATTRACTOR_QUEUE_URL: `postgres://attractor:hunter2@127.0.0.1:${port}/attractor` },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      `Cannot reach the queue's PostgreSQL at postgres://attractor@127.0.0.1:${port}/attractor`,
    );
    expect(result.stderr).toContain(
      'Start PostgreSQL there, or point --queue / ATTRACTOR_QUEUE_URL at a running server',
    );
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('store settings: an unreachable store exits 1, naming the setting and the fix', () => {
  it('says when the store server is down (ATTRACTOR_STORE_URL or --store), without the password', async () => {
    const port = await closedPort();
    const url = `postgres://attractor:hunter2@127.0.0.1:${port}/attractor`;
    const listed = await attractor(['runs'], { env: { ATTRACTOR_STORE_URL: url } });
    const inspected = await attractor(['inspect', 'some-run', '--store', url]);
    for (const result of [listed, inspected]) {
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toBe(
        `error: The run store at postgres://attractor@127.0.0.1:${port}/attractor (--store / ATTRACTOR_STORE_URL) is not available: connect ECONNREFUSED 127.0.0.1:${port}. Start PostgreSQL there, or point --store / ATTRACTOR_STORE_URL at a running server.`,
      );
    }
  });
});

const available = postgresAvailableForTests('attractor run --queue / answer / runs end-to-end tests');

describe.skipIf(!available)('run --queue --wait, answer, runs and inspect on PostgreSQL', () => {
  let server: PostgresTestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await temporaryDirectory('attractor-queue-cli-');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('follows a queued run through a gate answered from another process, then lists and inspects it by id', async () => {
    const env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: server.url };
    const worker = attractor(['worker', '--allow-tools', '--workdir-root', join(dir, 'work')], {
      cwd: dir,
      env,
    });
    try {
      const waiting = attractor(['run', GATE, '--simulate', '--queue', '--wait'], { cwd: dir, env });
      const stderr = await waitForOutput(waiting, 'stderr', 'answer with:');
      expect(stderr).toContain('waits at gate "ask": Ship it?');
      const runId = /answer with: attractor answer (\S+) <key>/.exec(stderr)?.[1] ?? '';
      const listed = await attractor(['runs', '--status', 'waiting'], { cwd: dir, env });
      expect(listed.stdout).toContain(`${runId}  waiting at gate ask  gate`);
      // The store's log says why the run paused (pipeline.suspended): inspect shows it waiting at the gate.
      const paused = await attractor(['inspect', runId, '--json'], { cwd: dir, env });
      expect(JSON.parse(paused.stdout)).toMatchObject({ state: 'waiting' });
      expect(
        (JSON.parse(paused.stdout) as { stages: { nodeId: string; state: string }[] }).stages.find(
          (stage) => stage.nodeId === 'ask',
        )?.state,
      ).toBe('waiting');
      const pausedText = await attractor(['inspect', runId], { cwd: dir, env });
      expect(pausedText.stdout).toContain(`waiting: at gate ask`);
      expect(pausedText.stdout).toMatch(/^duration: .+ so far/m);
      expect(pausedText.stdout).toContain(`answer with: attractor answer ${runId} <key>)`);
      // With the store as an option and no queue in the environment, the hint says the queue is needed too (its URL
      // holds a password, which no hint prints).
      const byOption = await attractor(['inspect', runId, '--store', server.url], { cwd: dir, env: {} });
      expect(byOption.stdout).toContain(`answer with: attractor answer ${runId} <key> --queue <queue url>)`);
      expect(byOption.stdout).not.toContain(server.password);
      const wrong = await attractor(['answer', runId, 'x'], { cwd: dir, env });
      expect(wrong.exitCode).toBe(2);
      expect(wrong.stderr).toContain('"x" is none of the options: S ([S] Ship), H ([H] Hold)');
      // By its label without the accelerator prefix (`[S] Ship`), as the README says an answer may be.
      const answered = await attractor(['answer', runId, 'Ship'], { cwd: dir, env });
      expect(answered.exitCode, answered.stderr).toBe(0);
      const finished = await waiting;
      expect(finished.exitCode).toBe(0);
      expect(finished.stdout.split('\n')[0]).toBe(runId);
      expect(finished.stdout).toContain('✓ ship success');
      const inspected = await attractor(['inspect', runId, '--json'], { cwd: dir, env });
      expect(inspected.exitCode, inspected.stderr).toBe(0);
      expect(JSON.parse(inspected.stdout)).toMatchObject({
        state: 'success',
        route: ['start', 'ask', 'ship', 'done'],
      });
      // The time printed counts the leg before the suspension too, as inspect does (it printed the last leg's alone).
      const { durationMs, wallTimeMs, startedAt, endedAt, stages } = JSON.parse(inspected.stdout) as {
        durationMs: number;
        wallTimeMs: number;
        startedAt: string;
        endedAt: string;
        stages: { durationMs: number }[];
      };
      expect(Number(/success in (\d+) ms/.exec(finished.stdout)?.[1])).toBe(Math.round(durationMs));
      // Its duration is the wall time, as the web UI shows it: the wait at the gate (the commands above ran during it)
      // included, unlike the time its two legs executed, which holds the stages' own.
      expect(wallTimeMs).toBe(Date.parse(endedAt) - Date.parse(startedAt));
      expect(wallTimeMs).toBeGreaterThan(durationMs);
      expect(stages.reduce((total, stage) => total + stage.durationMs, 0)).toBeLessThanOrEqual(durationMs);

      // A fork from the gate's checkpoint with an edited graph routes the recorded answer anew, on a worker.
      const edited = join(dir, 'edited.dot');
      await writeFile(
        edited,
        (await readFile(GATE, 'utf8')).replace('echo shipped >>', 'echo shipped-again >>'),
      );
      const forked = await attractor(['fork', runId, '--at', 'ask', '--graph', edited, '--wait'], {
        cwd: dir,
        env,
      });
      expect(forked.exitCode, forked.stderr).toBe(0);
      const forkId = forked.stdout.split('\n')[0] ?? '';
      expect(forkId).not.toBe(runId);
      expect(forked.stdout).toContain(`forked gate from ${runId} at ask@1`);
      const forkSummary = await attractor(['inspect', forkId, '--json'], { cwd: dir, env });
      expect(JSON.parse(forkSummary.stdout)).toMatchObject({ state: 'success' });
      // inspect names the source run as the store knows it (its id), not the worker's local path.
      const forkText = await attractor(['inspect', forkId], { cwd: dir, env });
      expect(forkText.stdout).toMatch(new RegExp(`^forked: {3}from ${runId} after ask@1 `, 'm'));
      // The fork worked in a fresh directory of its own (README "Running on several machines"): the source's trail,
      // which its `ship` stage wrote, is not in it, and the source's directory is left as it was.
      expect(await readFile(join(dir, 'work', forkId, 'trail.txt'), 'utf8')).toBe('shipped-again\n');
      expect(await readFile(join(dir, 'work', runId, 'trail.txt'), 'utf8')).toBe('shipped\n');
    } finally {
      worker.kill('SIGTERM');
      expect((await worker).exitCode).toBe(0);
    }
  }, 120_000);

  it('inspect names the run a loop_restart edge continued a queued run in by its id, with commands that work', async () => {
    const env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: server.url };
    const again = join(dir, 'again.dot');
    await writeFile(again, RESTART_ONCE);
    const workRoot = join(dir, 'work-again');
    const worker = attractor(['worker', '--allow-tools', '--workdir-root', workRoot], { cwd: dir, env });
    try {
      const failed = await attractor(['run', again, '--simulate', '--queue', '--wait'], { cwd: dir, env });
      expect(failed.exitCode, failed.stderr).toBe(1);
      const runId = failed.stdout.split('\n')[0] ?? '';
      const continued = `${runId}-restart-1`;
      const inspected = await attractor(['inspect', runId], { cwd: dir, env });
      expect(inspected.stdout).toMatch(/^route: start → work$/m);
      expect(inspected.stdout.split('\n')).toContain(
        `continued: ${continued}  (a loop_restart edge restarted the run there; attractor inspect ${continued}, or attractor resume ${runId})`,
      );
      // Without the settings in the environment, the commands carry the options (no password: placeholders).
      const byOption = await attractor(['inspect', runId, '--store', server.url], { cwd: dir, env: {} });
      expect(byOption.stdout.split('\n')).toContain(
        `continued: ${continued}  (a loop_restart edge restarted the run there; attractor inspect ${continued} --store <store url>, or attractor resume ${runId} --queue <queue url>)`,
      );
      expect(byOption.stdout).not.toContain(server.password);
      // Both printed commands work: the continuation is a run of the store, and the queued run resumes through it.
      const next = await attractor(['inspect', continued, '--json'], { cwd: dir, env });
      expect(next.exitCode, next.stderr).toBe(0);
      expect(JSON.parse(next.stdout)).toMatchObject({ runId: continued, state: 'fail', nextNode: 'check' });
      await writeFile(join(workRoot, runId, 'ok'), '');
      const resumed = await attractor(['resume', runId, '--wait'], { cwd: dir, env });
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const finished = await attractor(['inspect', continued, '--json'], { cwd: dir, env });
      expect(JSON.parse(finished.stdout)).toMatchObject({ state: 'success' });
    } finally {
      worker.kill('SIGTERM');
      expect((await worker).exitCode).toBe(0);
    }
  }, 120_000);

  it('resumes a queued run that a loop_restart edge continued on another machine (another --workdir-root) in the continuation, to success', async () => {
    const env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: server.url };
    const pipeline = join(dir, 'two-machines.dot');
    await writeFile(pipeline, RESTART_ONCE);
    // Two machines: each worker has a workdir root (and run directories under it) of its own.
    const firstRoot = join(dir, 'machine-a');
    const secondRoot = join(dir, 'machine-b');
    const first = attractor(['worker', '--allow-tools', '--workdir-root', firstRoot], { cwd: dir, env });
    let runId: string;
    try {
      const failed = await attractor(['run', pipeline, '--simulate', '--queue', '--wait'], { cwd: dir, env });
      expect(failed.exitCode, failed.stderr).toBe(1);
      runId = failed.stdout.split('\n')[0] ?? '';
    } finally {
      first.kill('SIGTERM');
      expect((await first).exitCode).toBe(0);
    }
    const continued = `${runId}-restart-1`;
    // The store names the continuation by its run id, not by the first worker's local directory.
    const restarted = await attractor(['inspect', runId, '--json'], { cwd: dir, env });
    expect(restarted.exitCode, restarted.stderr).toBe(0);
    expect(JSON.parse(restarted.stdout)).toMatchObject({ state: 'restarted', restartedTo: continued });
    const restartedText = await attractor(['inspect', runId], { cwd: dir, env });
    expect(restartedText.stdout.split('\n')).toContain(
      `continued: ${continued}  (a loop_restart edge restarted the run there; attractor inspect ${continued}, or attractor resume ${runId})`,
    );
    const second = attractor(['worker', '--allow-tools', '--workdir-root', secondRoot], { cwd: dir, env });
    try {
      await mkdir(join(secondRoot, runId), { recursive: true });
      await writeFile(join(secondRoot, runId, 'ok'), '');
      const resumed = await attractor(['resume', runId, '--queue', server.url, '--wait'], {
        cwd: dir,
        env: { ATTRACTOR_STORE_URL: server.url },
      });
      expect(resumed.exitCode, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      const finished = await attractor(['inspect', continued, '--json'], { cwd: dir, env });
      expect(JSON.parse(finished.stdout)).toMatchObject({
        runId: continued,
        state: 'success',
        route: ['work', 'check', 'check', 'exit'],
      });
      // The continuation's check ran on the second machine, in its workdir; the first machine's is as it was left.
      expect(await readFile(join(secondRoot, runId, 'trail.txt'), 'utf8')).toBe('checked\n');
      expect(existsSync(join(firstRoot, runId, 'trail.txt'))).toBe(false);
      // The original run is still the finished restart it was, naming its continuation.
      const original = await attractor(['inspect', runId, '--json'], { cwd: dir, env });
      expect(JSON.parse(original.stdout)).toMatchObject({ state: 'restarted', restartedTo: continued });
    } finally {
      second.kill('SIGTERM');
      expect((await second).exitCode).toBe(0);
    }
  }, 120_000);

  it('fails a run whose job used up its retries (its worker died): run --queue --wait exits 1 with the reason; runs lists it dead', async () => {
    const env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: server.url };
    const slow = join(dir, 'slow.dot');
    await writeFile(
      slow,
      'digraph slow { start [shape=Mdiamond]; nap [shape=parallelogram, tool_command="sleep 60"]; done [shape=Msquare]; start -> nap -> done }\n',
    );
    const worker = () => attractorWorker(dir, env, ['--retry-limit', '0']);
    const victim = worker();
    const survivors: ReturnType<typeof attractor>[] = [];
    try {
      // Its job settings (--retry-limit 0) apply to jobs sent once it is connected.
      await waitForOutput(victim, 'stderr', 'at a time');
      const following = attractor(['run', slow, '--simulate', '--queue', '--wait'], { cwd: dir, env });
      const stdout = await waitForOutput(following, 'stdout', '▶ nap');
      const runId = stdout.split('\n')[0] ?? '';
      // The worker dies mid-stage; with --retry-limit 0 its job is not retried: the next worker fails the run.
      victim.kill('SIGKILL');
      await victim;
      survivors.push(worker());
      const finished = await following;
      expect(finished.exitCode, finished.stderr).toBe(1);
      expect(`${finished.stdout}${finished.stderr}`).toContain(
        "failed: the run's job failed 1 time: job heartbeat timeout",
      );
      expect(finished.stderr).toMatch(new RegExp(`^resume with: attractor resume ${runId}$`, 'm'));
      // Dead-lettered: `runs` says so, with the reason (issue 34 §6), and lists it under --status dead.
      const listed = await attractor(['runs', '--status', 'dead'], { cwd: dir, env });
      expect(listed.stdout).toContain(
        `${runId}  dead (the run's job failed 1 time: job heartbeat timeout)  slow`,
      );
      // inspect's resume hint names the run by id, as `resume` takes it (not the store's URL#id), and the command works.
      const inspected = await attractor(['inspect', runId], { cwd: dir, env });
      // It says dead with the queue's reason, as `runs` does.
      expect(inspected.stdout.split('\n')[0]).toBe('slow  dead');
      expect(inspected.stdout).toContain("reason:   the run's job failed 1 time: job heartbeat timeout");
      const inspectedJson = await attractor(
        ['inspect', runId, '--json', '--store', server.url, '--queue', server.url],
        {
          cwd: dir,
          env: {},
        },
      );
      expect(JSON.parse(inspectedJson.stdout)).toMatchObject({
        state: 'dead',
        failureReason: "the run's job failed 1 time: job heartbeat timeout",
      });
      const hint = /^next: {2}nap {2}\((.+)\)$/m.exec(inspected.stdout)?.[1];
      expect(hint).toBe(`attractor resume ${runId}`);
      const byOption = await attractor(['inspect', runId, '--store', server.url], { cwd: dir, env: {} });
      expect(byOption.stdout).toContain(`(attractor resume ${runId} --queue <queue url>)`);
      const resumed = await attractor(['resume', runId], { cwd: dir, env });
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(`run ${runId} (fail) is queued again`);
    } finally {
      victim.kill('SIGKILL');
      for (const survivor of survivors) survivor.kill('SIGTERM');
      await Promise.all([victim, ...survivors]);
    }
  }, 120_000);
});
