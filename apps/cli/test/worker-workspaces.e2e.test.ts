/**
 * Issue 28 item 6 with real processes: a run's workspace follows the run across `attractor worker` processes that
 * share no directory (each its own working directory and workdir root), only the PostgreSQL queue and store, and, in
 * the first test, a shared bare repository (`--workspace-remote`); in the second, nothing else (the run's commits
 * travel as git bundles in the store). The first worker drains in the middle of the run; the second continues it
 * from the last checkpoint's commit; the run ends with the tree of an uninterrupted run.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PipelineEvent, RunCatalog, StageCompletedEvent } from '@attractor/engine';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { connectRunQueue, type RunQueue } from '@attractor/worker';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { attractor, attractorWorker, temporaryDirectory } from './helpers/cli.js';
import { stderrOf, until } from './helpers/until.js';

const available = postgresAvailableForTests('attractor worker workspace tests');

/** Three tool stages; the middle one is slow enough for its worker to be told to drain while it runs. */
const PIPELINE = `digraph moves {
  start [shape=Mdiamond]
  first [shape=parallelogram, tool_command="echo first > first.txt"]
  slow [shape=parallelogram, tool_command="sleep 2; mkdir -p out && echo slow > out/slow.txt"]
  after [shape=parallelogram, tool_command="echo after >> first.txt && rm -f notes.txt"]
  done [shape=Msquare]
  start -> first -> slow -> after -> done
}
`;

async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await execa('git', args, {
    cwd,
    env: {
      GIT_AUTHOR_NAME: 'Test User',
      GIT_AUTHOR_EMAIL: 'user@example.com',
      GIT_COMMITTER_NAME: 'Test User',
      GIT_COMMITTER_EMAIL: 'user@example.com',
    },
    stripFinalNewline: true,
  });
  return result.stdout;
}

describe.skipIf(!available)('a run that moves between workers keeps its files (issue 28)', () => {
  let server: PostgresTestServer;
  let env: Record<string, string>;
  let catalog: RunCatalog;
  let queue: RunQueue;
  beforeAll(async () => {
    server = await startPostgresServer();
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

  /**
   * Starts worker A (in a directory of its own), enqueues PIPELINE with `workspace`, drains A while stage `slow`
   * runs, then starts worker B (another directory) and waits for the run to succeed there.
   */
  async function runAcrossWorkers(workspace: 'git' | 'copy', workerOptions: readonly string[]) {
    const [dirA, dirB] = [
      await temporaryDirectory('attractor-worker-a-'),
      await temporaryDirectory('attractor-worker-b-'),
    ];
    const workerA = attractorWorker(dirA, env, workerOptions);
    const logA = stderrOf(workerA);
    await until(
      () => logA.text.includes('at a time'),
      60_000,
      () => `worker A to start: ${logA.text}`,
    );
    const runId = await queue.enqueueRun({ source: PIPELINE, graphName: 'moves', options: { workspace } });
    await until(
      async () =>
        (await readEvents(runId)).some((event) => event.type === 'stage.started' && event.nodeId === 'slow'),
      60_000,
      () => `stage slow to start on worker A: ${logA.text}`,
    );
    // Not `workerA.kill()`: execa's would SIGKILL it 5 s later, before a drain on a busy machine has ended.
    process.kill(workerA.pid!, 'SIGTERM');
    const stoppedA = await workerA;
    expect(stoppedA.exitCode, logA.text).toBe(0);
    expect(logA.text).toContain(`run ${runId}: handed back to the queue`);
    expect((await catalog.open(runId).readCheckpoint())?.completed_nodes).toEqual(['start', 'first', 'slow']);
    // Worker B is on another machine: nothing of A's directory (its worktree, its repository) is there.
    await rm(dirA, { recursive: true, force: true });

    const workerB = attractorWorker(dirB, env, workerOptions);
    const logB = stderrOf(workerB);
    try {
      await until(
        async () => (await queue.readRun(runId))?.state === 'success',
        120_000,
        () => `the run to succeed on worker B: ${logB.text}`,
      );
    } finally {
      process.kill(workerB.pid!, 'SIGTERM');
      expect((await workerB).exitCode).toBe(0);
    }
    expect(logB.text).toContain(`run ${runId}: resumed`);
    const checkpoint = await catalog.open(runId).readCheckpoint();
    const events = await readEvents(runId);
    const commits = Object.fromEntries(
      events
        .filter(
          (event): event is StageCompletedEvent =>
            event.type === 'stage.completed' && event.commit !== undefined,
        )
        .map((event) => [event.nodeId, event.commit!]),
    );
    return { runId, dirA, dirB, record: checkpoint?.workspace as Record<string, string>, commits };
  }

  it('through a shared repository: worker A starts the run from its HEAD and pushes, worker B fetches and finishes it', async () => {
    const project = await temporaryDirectory('attractor-project-');
    await git(project, 'init', '-q', '-b', 'main');
    await writeFile(join(project, 'notes.txt'), 'notes\n');
    await writeFile(join(project, 'first.txt'), 'old\n');
    await git(project, 'add', '-A');
    await git(project, 'commit', '-q', '-m', 'initial');
    const remote = join(await temporaryDirectory('attractor-shared-'), 'shared.git');
    await git(project, 'clone', '-q', '--bare', project, remote);

    const moved = await runAcrossWorkers('git', ['--workspace-remote', remote]);
    const ref = `attractor/${moved.runId}`;
    // B worked in a worktree of its own repository (A's directory is not B's), fetched from the shared one.
    expect(moved.record.worktree).toBe(join(moved.dirB, 'work', '.attractor', 'workspaces', moved.runId));
    expect(moved.record.ref).toBe(ref);
    // The shared repository has the run's branch: A's two commits, then B's, on the shared HEAD.
    expect(await git(remote, 'rev-parse', ref)).toBe(moved.record.commit);
    expect((await git(remote, 'log', '--format=%s', ref)).split('\n')).toEqual([
      'attractor: after (visit 1, attempt 1) success',
      'attractor: slow (visit 1, attempt 1) success',
      'attractor: first (visit 1, attempt 1) success',
      'initial',
    ]);
    expect(await git(remote, 'rev-parse', `${ref}~1`)).toBe(moved.commits.slow);

    // An uninterrupted run of the same pipeline from the same commit ends with the same tree.
    const reference = await temporaryDirectory('attractor-reference-');
    await git(reference, 'clone', '-q', remote, 'checkout');
    await writeFile(join(reference, 'moves.dot'), PIPELINE);
    const local = await attractor(
      [
        'run',
        join(reference, 'moves.dot'),
        '--workspace',
        'git',
        '--workdir',
        join(reference, 'checkout'),
        '--logs-dir',
        join(reference, 'runs', 'ref'),
        '-q',
      ],
      { cwd: reference },
    );
    expect(local.exitCode, local.stderr).toBe(0);
    expect(await git(remote, 'rev-parse', `${ref}^{tree}`)).toBe(
      await git(join(reference, 'checkout'), 'rev-parse', 'attractor/ref^{tree}'),
    );
    expect(await git(remote, 'ls-tree', '-r', '--name-only', ref)).toBe('first.txt\nout/slow.txt');
  }, 360_000);

  it('through bundles in the run store: no shared directory or repository at all', async () => {
    const moved = await runAcrossWorkers('copy', []);
    expect(moved.record.mode).toBe('copy');
    expect(moved.record.worktree).toBe(join(moved.dirB, 'work', '.attractor', 'workspaces', moved.runId));

    // Everything the run committed is in the store: unbundled into an empty repository, the checkpoint's commit is
    // there, with the stages' commits below it.
    const store = catalog.open(moved.runId);
    const bundles = (await store.listArtifacts())
      .map((file) => file.name)
      .filter((name) => name.startsWith('workspace-bundle-'))
      .sort();
    expect(bundles.length).toBeGreaterThanOrEqual(4);
    const scratch = await mkdtemp(join(tmpdir(), 'attractor-unbundle-'));
    try {
      await git(scratch, 'init', '-q', '--bare', 'repo.git');
      for (const name of bundles) {
        await writeFile(join(scratch, 'b.bundle'), (await store.readArtifact(name))!);
        await git(join(scratch, 'repo.git'), 'bundle', 'unbundle', join(scratch, 'b.bundle'));
      }
      const repo = join(scratch, 'repo.git');
      expect(await git(repo, 'log', '--format=%s', moved.record.commit!)).toContain(
        'attractor: slow (visit 1, attempt 1) success',
      );

      // An uninterrupted copy run of an empty directory ends with the same tree.
      const reference = await temporaryDirectory('attractor-reference-');
      await mkdir(join(reference, 'empty'));
      await writeFile(join(reference, 'moves.dot'), PIPELINE);
      const local = await attractor(
        [
          'run',
          join(reference, 'moves.dot'),
          '--workspace',
          'copy',
          '--workdir',
          join(reference, 'empty'),
          '--logs-dir',
          join(reference, 'runs', 'ref'),
          '-q',
        ],
        { cwd: reference },
      );
      expect(local.exitCode, local.stderr).toBe(0);
      expect(await git(repo, 'rev-parse', `${moved.record.commit}^{tree}`)).toBe(
        await git(join(reference, 'runs', 'ref', 'workspace.git'), 'rev-parse', 'attractor/ref^{tree}'),
      );
      expect(await git(repo, 'ls-tree', '-r', '--name-only', moved.record.commit!)).toBe(
        'first.txt\nout/slow.txt',
      );
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }, 360_000);
});
