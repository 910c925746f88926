/**
 * Operator commands (issue 34 §6): `cancel`, `runs` (pages, dead letters with their reason), `retry-dead`, `purge`,
 * and `run --store` without `--queue`. Real CLI processes, real run directories, a real PostgreSQL for the queue.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileRunCatalog, type PipelineEvent } from '@attractor/engine';
import { createTestCheckpoint, createTestManifest } from '@attractor/engine/test';
import { connectRunQueue } from '@attractor/worker';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { attractor, temporaryDirectory } from './helpers/cli.js';
import { isAlive } from './helpers/process-alive.js';

/** A stage that records its pid, then runs until it is stopped. */
const SLOW = `digraph slow {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [shape=parallelogram, tool_command="echo $$ > work.pid; sleep 60; echo done > finished"]
  start -> work -> exit
}`;
const QUICK = `digraph quick {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [shape=parallelogram, tool_command="echo ok"]
  start -> work -> exit
}`;

/** Polls `check` every 100 ms until it is true (at most `timeoutMs`, generous: the machine may be loaded). */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts `run slow.dot` in `cwd` with `--logs-dir run` and waits until its stage's command runs; its pid. */
async function startSlowRun(cwd: string) {
  await writeFile(join(cwd, 'slow.dot'), SLOW);
  const child = attractor(['run', 'slow.dot', '--simulate', '--logs-dir', 'run'], { cwd });
  await until(() => existsSync(join(cwd, 'work.pid')), 'the stage to start');
  return { child, workPid: Number(readFileSync(join(cwd, 'work.pid'), 'utf8').trim()) };
}

describe('attractor cancel on run directories', () => {
  it('asks the process running the run to stop it; the run ends cancelled with the reason, resumable', async () => {
    const cwd = await temporaryDirectory();
    const { child, workPid } = await startSlowRun(cwd);
    const cancelled = await attractor(['cancel', 'run', '--reason', 'ops: wrong branch'], { cwd });
    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain('cancelled run run; its checkpoint is kept: attractor resume run');
    const run = await child;
    expect(run.exitCode).toBe(130);
    expect(run.stdout).toMatch(/Cancelled after .* \(ops: wrong branch\); the last checkpoint is kept\./);
    await until(() => !isAlive(workPid), "the stage's command to end");
    expect(existsSync(join(cwd, 'finished'))).toBe(false);
    const events = readFileSync(join(cwd, 'run', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as PipelineEvent);
    expect(events.at(-1)).toMatchObject({ type: 'pipeline.cancelled', reason: 'ops: wrong branch' });
    // Cancelled already: nothing to do, and it says so.
    const again = await attractor(['cancel', 'run'], { cwd });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('run run was already cancelled');
  });

  it('marks a run whose runner was killed (interrupted) cancelled, and ends the command it left running', async () => {
    const cwd = await temporaryDirectory();
    const { child, workPid } = await startSlowRun(cwd);
    child.kill('SIGKILL');
    await child;
    expect(isAlive(workPid)).toBe(true);
    const cancelled = await attractor(['cancel', 'run'], { cwd });
    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain('cancelled run run: its runner had died (it was interrupted)');
    await until(() => !isAlive(workPid), 'the orphaned command to end');
    const [entry] = await createFileRunCatalog(cwd).listRuns();
    expect(entry).toMatchObject({ runId: 'run', status: 'cancelled' });
  });

  it('says a finished run has nothing to cancel (exit 1), and names a path that is no run', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'quick.dot'), QUICK);
    expect(
      (await attractor(['run', 'quick.dot', '--simulate', '--logs-dir', 'done'], { cwd })).exitCode,
    ).toBe(0);
    const finished = await attractor(['cancel', 'done'], { cwd });
    expect(finished.exitCode).toBe(1);
    expect(finished.stderr).toContain('run done already ended (success): there is nothing to cancel');
    const missing = await attractor(['cancel', 'nowhere'], { cwd });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('No run directory nowhere');
  });
});

describe('run --store without --queue (issue 34 §6)', () => {
  it('records a run in a store directory, where runs, inspect, resume and cancel find it by id', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'quick.dot'), QUICK);
    const ran = await attractor(['run', 'quick.dot', '--simulate', '--store', 'shared', '-q'], { cwd });
    expect(ran.exitCode, ran.stderr).toBe(0);
    const [runId] = await readdir(join(cwd, 'shared'));
    expect(ran.stdout).toContain(`Run directory: shared/${runId}`);
    const listed = await attractor(['runs', '--store', 'shared'], { cwd });
    expect(listed.stdout).toContain(`${runId}  success  quick`);
    const inspected = await attractor(['inspect', runId!, '--store', 'shared', '--json'], { cwd });
    expect(JSON.parse(inspected.stdout)).toMatchObject({ state: 'success' });
    const again = await attractor(['resume', runId!, '--store', 'shared', '--from', 'work', '-q'], { cwd });
    expect(again.exitCode, again.stderr).toBe(0);
    const cancel = await attractor(['cancel', runId!, '--store', 'shared'], { cwd });
    expect(cancel.stderr).toContain('already ended (success)');
    // A failed run of the directory: inspect's resume hint names the directory, not a queue (none is set).
    await writeFile(
      join(cwd, 'failing.dot'),
      'digraph failing { start [shape=Mdiamond]; check [shape=parallelogram, tool_command="exit 1"]; exit [shape=Msquare]; start -> check -> exit }\n',
    );
    const failed = await attractor(['run', 'failing.dot', '--store', 'shared', '-q'], { cwd });
    expect(failed.exitCode).toBe(1);
    const failedId = (await readdir(join(cwd, 'shared'))).find((name) => name !== runId)!;
    const hinted = await attractor(['inspect', failedId, '--store', 'shared'], { cwd });
    expect(hinted.stdout).toContain(`attractor resume ${failedId} --store shared)`);
    expect(hinted.stdout).not.toContain('--queue');
  });

  it('refuses a PostgreSQL store, which only workers write, and says what to do', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'quick.dot'), QUICK);
    const refused = await attractor(
      ['run', 'quick.dot', '--simulate', '--store', 'postgres://attractor:secret@127.0.0.1:1/attractor'],
      { cwd },
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--store postgres://… holds runs that workers execute');
    expect(refused.stderr).toContain('Add --queue <url>');
    expect(refused.stderr).not.toContain('secret');
    expect(existsSync(join(cwd, '.attractor'))).toBe(false);
    const both = await attractor(['run', 'quick.dot', '--simulate', '--store', 's', '--logs-dir', 'r'], {
      cwd,
    });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--store <dir> and --logs-dir both say where the run directory goes');
  });
});

/** Writes a finished run `runId` (started `startedAt`) into the file store `root`, as a runner leaves it. */
async function writeFinishedRun(root: string, runId: string, startedAt: string, state: 'success' | 'fail') {
  const store = createFileRunCatalog(root).open(runId);
  await store.writeManifest(createTestManifest({ run_id: runId, graph_name: 'g', started_at: startedAt }));
  await store.writeCheckpoint(
    createTestCheckpoint({ run_id: runId, state, next_node: null, timestamp: startedAt }),
  );
  await store.close();
}

describe('attractor runs: pages', () => {
  it('prints a page of the newest runs, says which of how many, and the next page; --limit 0 prints all', async () => {
    const cwd = await temporaryDirectory();
    for (let index = 0; index < 7; index++) {
      await writeFinishedRun(
        join(cwd, 'store'),
        `run-${index}`,
        `2026-01-0${index + 1}T00:00:00.000Z`,
        'success',
      );
    }
    const first = await attractor(['runs', '--store', 'store', '--limit', '3'], { cwd });
    expect(
      first.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('  ')[0]),
    ).toEqual(['run-6', 'run-5', 'run-4']);
    // The next page's command pastes as it is: the same store, filters and page size.
    expect(first.stderr).toContain(
      'runs 1-3 of 7, newest first; next page: attractor runs --store store --limit 3 --page 2 (or --limit 0 for all)',
    );
    const filtered = await attractor(
      ['runs', '--store', 'store', '--status', 'success', '--limit', '2', '--json'],
      { cwd },
    );
    expect(filtered.stderr).toContain(
      'next page: attractor runs --store store --status success --limit 2 --json --page 2',
    );
    const second = await attractor(['runs', '--store', 'store', '--limit', '3', '--page', '2'], { cwd });
    expect(
      second.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('  ')[0]),
    ).toEqual(['run-3', 'run-2', 'run-1']);
    const last = await attractor(['runs', '--store', 'store', '--limit', '3', '--page', '3', '--json'], {
      cwd,
    });
    expect((JSON.parse(last.stdout) as { runId: string }[]).map((run) => run.runId)).toEqual(['run-0']);
    expect(last.stderr).toContain('runs 7-7 of 7, newest first');
    const all = await attractor(['runs', '--store', 'store', '--limit', '0'], { cwd });
    expect(all.stdout.trim().split('\n')).toHaveLength(7);
    expect(all.stderr).toContain('7 runs, newest first');
    const wrong = await attractor(['runs', '--store', 'store', '--status', 'broken'], { cwd });
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain('--status broken is no run status');
  });
});

describe('attractor runs without a store', () => {
  it('lists the runs of ./.attractor/runs, where run leaves them, as purge and inspect read them', async () => {
    const cwd = await temporaryDirectory();
    const local = join(cwd, '.attractor', 'runs');
    await writeFinishedRun(local, 'local-success', '2026-01-01T00:00:00.000Z', 'success');
    await writeFinishedRun(local, 'local-fail', '2026-01-02T00:00:00.000Z', 'fail');
    const listed = await attractor(['runs'], { cwd });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/).slice(0, 2).join(' ')),
    ).toEqual(['local-fail fail', 'local-success success']);
    const empty = await attractor(['runs'], { cwd: await temporaryDirectory() });
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(empty.stdout).toBe('');
  });
});

describe('attractor purge', () => {
  it('lists what it would remove unless --yes, removes old runs of the chosen statuses, never a running one', async () => {
    const cwd = await temporaryDirectory();
    const store = join(cwd, 'store');
    await writeFinishedRun(store, 'old-success', '2026-01-01T00:00:00.000Z', 'success');
    await writeFinishedRun(store, 'old-fail', '2026-01-02T00:00:00.000Z', 'fail');
    // A run in progress, in the store directory too.
    const { child, workPid } = await startSlowRun(cwd);
    try {
      const listed = await attractor(['purge', '--older-than', '30d', '--store', 'store'], { cwd });
      expect(listed.exitCode).toBe(0);
      expect(listed.stdout).toContain('would remove old-success  success');
      expect(listed.stdout).toContain('would remove old-fail  fail');
      expect(listed.stderr).toContain(
        'nothing removed; to remove them: attractor purge --older-than 30d --yes',
      );
      expect(existsSync(join(store, 'old-success'))).toBe(true);

      const onlyFailed = await attractor(
        ['purge', '--older-than', '30d', '--store', 'store', '--status', 'fail', '--yes'],
        { cwd },
      );
      expect(onlyFailed.exitCode, onlyFailed.stderr).toBe(0);
      expect(onlyFailed.stdout.trim()).toMatch(/^removed old-fail {2}fail/);
      expect(existsSync(join(store, 'old-fail'))).toBe(false);
      expect(existsSync(join(store, 'old-success'))).toBe(true);

      // The local runs directory holds the running run: every purgeable status, no age limit, and it stays.
      const running = await attractor(
        [
          'purge',
          '--older-than',
          '0s',
          '--store',
          '.',
          '--status',
          'success,fail,cancelled,dead,interrupted',
          '--yes',
        ],
        { cwd },
      );
      expect(running.exitCode, running.stderr).toBe(0);
      expect(running.stdout).not.toContain('removed run ');
      expect(existsSync(join(cwd, 'run', 'manifest.json'))).toBe(true);
      const refused = await attractor(['purge', '--older-than', '1d', '--status', 'running'], { cwd });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain('never one that is queued, running or waiting');
      const badAge = await attractor(['purge', '--older-than', 'a month'], { cwd });
      expect(badAge.exitCode).toBe(2);
      expect(badAge.stderr).toContain('--older-than a month is no age');
    } finally {
      child.kill('SIGINT');
      await child;
      await until(() => !isAlive(workPid), 'the slow run to stop');
    }
  });
});

describe('attractor purge of runs with git workspaces', () => {
  it("removes a removed run's worktree and branch, and leaves another run's alone (a new user found them prunable)", async () => {
    const repo = await temporaryDirectory('attractor-purge-git-');
    const git = async (...args: string[]) => (await execa('git', args, { cwd: repo })).stdout;
    await git('init', '-q', '-b', 'main');
    await git('config', 'user.name', 'Test User');
    await git('config', 'user.email', 'user@example.com');
    await writeFile(join(repo, '.gitignore'), '.attractor/\nother/\n');
    await writeFile(join(repo, 'quick.dot'), QUICK.replace('echo ok', 'echo ok > out.txt'));
    await git('add', '-A');
    await git('commit', '-q', '-m', 'initial');
    const env = { ATTRACTOR_WORKSPACE: 'git' };
    for (const logsDir of [join('.attractor', 'runs', 'old'), join('other', 'kept')]) {
      const ran = await attractor(['run', 'quick.dot', '--logs-dir', logsDir, '-q'], { cwd: repo, env });
      expect(ran.exitCode, ran.stderr).toBe(0);
    }
    // The preview names the worktree and branch too, and removes nothing.
    const preview = await attractor(['purge', '--older-than', '0s'], { cwd: repo });
    expect(preview.stdout).toContain('would remove worktree .attractor/runs/old/workspace');
    expect(preview.stdout).toContain('would remove branch attractor/old');
    expect(await git('branch', '--list', 'attractor/*')).toBe('+ attractor/kept\n+ attractor/old');
    const purged = await attractor(['purge', '--older-than', '0s', '--yes'], { cwd: repo });
    expect(purged.exitCode, purged.stderr).toBe(0);
    expect(purged.stdout).toContain('removed old  success');
    expect(purged.stdout).toContain('removed worktree .attractor/runs/old/workspace');
    expect(purged.stdout).toContain('removed branch attractor/old');
    expect(existsSync(join(repo, '.attractor', 'runs', 'old'))).toBe(false);
    // Nothing is left for `clean`: no prunable worktree, no branch of the removed run; the other run keeps both.
    expect(await git('branch', '--list', 'attractor/*')).toBe('+ attractor/kept');
    const worktrees = (await git('worktree', 'list', '--porcelain')).split('\n\n');
    expect(worktrees).toHaveLength(2);
    expect(worktrees.join('\n')).not.toContain('prunable');
    expect(worktrees[1]).toContain(join('other', 'kept', 'workspace'));
  });
});

const available = postgresAvailableForTests(
  'attractor runs --status dead / retry-dead / cancel --queue tests',
);

describe.skipIf(!available)('dead letters and cancels on the PostgreSQL queue', () => {
  let server: PostgresTestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await temporaryDirectory('attractor-ops-queue-');
    await writeFile(join(dir, 'quick.dot'), QUICK);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('lists a dead-lettered run as dead with its reason (text and JSON), and retry-dead queues it again', async () => {
    const env = { ATTRACTOR_QUEUE_URL: server.url };
    const enqueued = await attractor(['run', 'quick.dot', '--simulate', '--queue'], { cwd: dir, env });
    expect(enqueued.exitCode, enqueued.stderr).toBe(0);
    const runId = enqueued.stdout.trim();
    const other = (
      await attractor(['run', 'quick.dot', '--simulate', '--queue'], { cwd: dir, env })
    ).stdout.trim();
    // What a worker does with a job that used up its retries (fail-dead-run-job.ts).
    const queue = await connectRunQueue({ url: server.url });
    const reason = "the run's job failed 6 times: the worker's process died (exit by SIGKILL)";
    try {
      expect(await queue.failRun({ runId, error: reason, deadLettered: true })).toBe(true);
    } finally {
      await queue.close();
    }
    const dead = await attractor(['runs', '--status', 'dead'], { cwd: dir, env });
    expect(dead.exitCode, dead.stderr).toBe(0);
    expect(dead.stdout.trim()).toMatch(
      new RegExp(`^${runId} {2}dead \\(${reason.replace(/[()]/g, '\\$&')}\\) {2}quick`),
    );
    expect(dead.stdout).not.toContain(other);
    const json = JSON.parse((await attractor(['runs', '--json'], { cwd: dir, env })).stdout) as {
      runId: string;
      status: string;
      reason?: string;
    }[];
    expect(json.find((run) => run.runId === runId)).toMatchObject({ status: 'dead', reason });
    expect(json.find((run) => run.runId === other)).toMatchObject({ status: 'queued' });

    const notDead = await attractor(['retry-dead', other], { cwd: dir, env });
    expect(notDead.exitCode).toBe(1);
    expect(notDead.stderr).toContain(`run ${other} is queued, not a dead letter`);
    const retried = await attractor(['retry-dead', '--all'], { cwd: dir, env });
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(retried.stdout).toContain(`run ${runId} is queued again (dead since `);
    expect(retried.stdout).toContain(reason);
    const after = JSON.parse((await attractor(['runs', '--json'], { cwd: dir, env })).stdout) as {
      runId: string;
      status: string;
    }[];
    expect(after.find((run) => run.runId === runId)?.status).toBe('queued');
    const none = await attractor(['retry-dead', '--all'], { cwd: dir, env });
    expect(none.stderr).toContain('no dead runs');
    const noQueue = await attractor(['runs', '--status', 'dead', '--store', join(dir, 'store')], {
      cwd: dir,
    });
    expect(noQueue.exitCode).toBe(2);
    expect(noQueue.stderr).toContain('Dead letters are kept by the run queue');
  });

  it('cancels a queued run by id; a run that ended is left alone', async () => {
    const env = { ATTRACTOR_QUEUE_URL: server.url };
    const runId = (
      await attractor(['run', 'quick.dot', '--simulate', '--queue'], { cwd: dir, env })
    ).stdout.trim();
    const cancelled = await attractor(['cancel', runId, '--reason', 'not needed'], { cwd: dir, env });
    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain(`cancelled run ${runId} (it was queued)`);
    const queue = await connectRunQueue({ url: server.url });
    try {
      expect(await queue.readRun(runId)).toMatchObject({ state: 'cancelled', error: 'not needed' });
    } finally {
      await queue.close();
    }
    const again = await attractor(['cancel', runId], { cwd: dir, env });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain(`run ${runId} was already cancelled`);
  });
});
