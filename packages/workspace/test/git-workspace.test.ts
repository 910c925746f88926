import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PipelineEvent, StageCompletedEvent } from '@attractor/engine';
import { runDot } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { createWorkspaceProvider, workspaceRecordOf } from '../src/index.js';
import { git, makeRepository, snapshotCheckout, writeFiles } from './git-fixture.js';

const CHAIN = `digraph chain {
  start [shape=Mdiamond]
  write_a [shape=parallelogram, tool_command="echo A > a.txt && echo changed >> src/app.txt"]
  noop [shape=parallelogram, tool_command="true"]
  write_b [shape=parallelogram, tool_command="mkdir -p sub && echo B > sub/b.txt && echo log > debug.log"]
  exit [shape=Msquare]
  start -> write_a -> noop -> write_b -> exit
}`;

function completions(events: readonly PipelineEvent[]): StageCompletedEvent[] {
  return events.filter((event): event is StageCompletedEvent => event.type === 'stage.completed');
}

describe('git workspace (README "Workspaces")', () => {
  it('leaves a checkout with uncommitted, staged, untracked and stashed changes byte-identical, and commits each file-changing stage', async () => {
    const repo = await makeRepository();
    writeFiles(repo, { 'stashed.txt': 'stash me\n' });
    await git(repo, 'add', 'stashed.txt');
    await git(repo, 'stash', 'push', '-q', '-m', 'user stash');
    writeFiles(repo, { 'src/app.txt': 'line 1\nuser edit\nline 3\n', 'staged.txt': 'staged\n' });
    await git(repo, 'add', 'staged.txt');
    writeFiles(repo, { 'untracked.txt': 'mine\n', 'ignored.log': 'ignored\n' });
    const before = await snapshotCheckout(repo);

    const run = await runDot(CHAIN, {
      registry: createDefaultRegistry(),
      workdir: repo,
      logsRoot: join(repo, '.attractor', 'runs', 'r1'),
      workspace: createWorkspaceProvider(),
    });

    expect(run.result.status).toBe('success');
    expect(await snapshotCheckout(repo)).toEqual(before);
    const worktree = join(run.logsRoot, 'workspace');
    // The run started from the user's uncommitted and untracked files, not the ignored ones.
    expect(readFileSync(join(worktree, 'untracked.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(worktree, 'staged.txt'), 'utf8')).toBe('staged\n');
    expect(readFileSync(join(worktree, 'src/app.txt'), 'utf8')).toBe('line 1\nuser edit\nline 3\nchanged\n');
    expect(existsSync(join(worktree, 'ignored.log'))).toBe(false);
    expect(existsSync(join(worktree, 'stashed.txt'))).toBe(false);

    const log = (await git(repo, 'log', '--format=%s|%an <%ae>', 'attractor/r1')).split('\n');
    expect(log.slice(0, 3)).toEqual([
      'attractor: write_b (visit 1, attempt 1) success|Attractor <attractor@localhost>',
      'attractor: write_a (visit 1, attempt 1) success|Attractor <attractor@localhost>',
      'attractor: start of run r1|Attractor <attractor@localhost>',
    ]);
    expect(log[3]).toBe('initial|Test User <user@example.com>');
    // The ignored file a stage wrote stays out of the commit.
    expect(await git(repo, 'show', '--name-only', '--format=', 'attractor/r1')).toBe('sub/b.txt');
    const trailers = (
      await git(repo, 'log', '-1', '--format=%(trailers:only,unfold)', 'attractor/r1~1')
    ).trim();
    expect(trailers).toBe(
      'Attractor-Run: r1\nAttractor-Node: write_a\nAttractor-Visit: 1\nAttractor-Attempt: 1\nAttractor-Outcome: success',
    );

    const [writeA, noop, writeB] = ['write_a', 'noop', 'write_b'].map((id) =>
      completions(run.events).find((event) => event.nodeId === id),
    );
    const headCommit = await git(repo, 'rev-parse', 'attractor/r1');
    expect(writeB?.commit).toBe(headCommit);
    expect(writeA?.commit).toBe(await git(repo, 'rev-parse', 'attractor/r1~1'));
    expect(noop?.commit).toBeUndefined();
    const status = JSON.parse(readFileSync(join(run.logsRoot, 'write_b', 'status.json'), 'utf8'));
    expect(status.commit).toBe(headCommit);
    expect(
      JSON.parse(readFileSync(join(run.logsRoot, 'noop', 'status.json'), 'utf8')).commit,
    ).toBeUndefined();
    const checkpoint = JSON.parse(readFileSync(join(run.logsRoot, 'checkpoint.json'), 'utf8'));
    expect(workspaceRecordOf(checkpoint.workspace)).toMatchObject({
      mode: 'git',
      run_id: 'r1',
      commit: headCommit,
      ref: 'attractor/r1',
      worktree,
    });
    const started = run.events.find((event) => event.type === 'pipeline.started');
    expect(started).toMatchObject({ workspace: { mode: 'git', branch: 'attractor/r1', workdir: worktree } });
  });

  it('gives tools the worktree as their working directory and $ATTRACTOR_WORKDIR', async () => {
    const repo = await makeRepository();
    const run = await runDot(
      `digraph where {
        start [shape=Mdiamond]
        where [shape=parallelogram, tool_command="pwd > cwd.txt && printf %s \\"$ATTRACTOR_WORKDIR\\" > env.txt"]
        exit [shape=Msquare]
        start -> where -> exit
      }`,
      {
        registry: createDefaultRegistry(),
        workdir: join(repo, 'src'),
        logsRoot: join(repo, '.attractor', 'runs', 'r2'),
        workspace: createWorkspaceProvider(),
      },
    );
    expect(run.result.status).toBe('success');
    const workdir = join(run.logsRoot, 'workspace', 'src');
    expect(readFileSync(join(workdir, 'cwd.txt'), 'utf8').trim()).toBe(workdir);
    expect(readFileSync(join(workdir, 'env.txt'), 'utf8')).toBe(workdir);
    expect(existsSync(join(repo, 'src', 'cwd.txt'))).toBe(false);
  });

  it('does not commit files over the size limit and names them in a warning', async () => {
    const repo = await makeRepository();
    const run = await runDot(
      `digraph big {
        start [shape=Mdiamond]
        make [shape=parallelogram, tool_command="head -c 3000 /dev/zero > big.bin && echo small > small.txt"]
        exit [shape=Msquare]
        start -> make -> exit
      }`,
      {
        registry: createDefaultRegistry(),
        workdir: repo,
        logsRoot: join(repo, '.attractor', 'runs', 'r3'),
        workspace: createWorkspaceProvider({ maxFileBytes: 1000 }),
      },
    );
    expect(run.result.status).toBe('success');
    expect(await git(repo, 'show', '--name-only', '--format=', 'attractor/r3')).toBe('small.txt');
    const warning = run.events.find((event) => event.type === 'stage.log' && event.level === 'warn');
    expect(warning).toMatchObject({
      nodeId: 'make',
      message: 'not committed to the workspace: big.bin (2.9 KB, over the 1000 B limit)',
    });
  });

  it('works in place outside a git repository unless asked for a copy', async () => {
    const run = await runDot(
      `digraph plain {
        start [shape=Mdiamond]
        touch [shape=parallelogram, tool_command="echo x > out.txt"]
        exit [shape=Msquare]
        start -> touch -> exit
      }`,
      { registry: createDefaultRegistry(), workspace: createWorkspaceProvider() },
    );
    expect(run.result.status).toBe('success');
    expect(readFileSync(join(run.workdir, 'out.txt'), 'utf8')).toBe('x\n');
    expect(run.events.find((event) => event.type === 'pipeline.started')).not.toHaveProperty('workspace');
  });

  it('runs in a copy with per-stage snapshots when asked for copy mode', async () => {
    const run = await runDot(
      `digraph copied {
        start [shape=Mdiamond]
        touch [shape=parallelogram, tool_command="echo x >> data.txt"]
        exit [shape=Msquare]
        start -> touch -> exit
      }`,
      {
        registry: createDefaultRegistry(),
        workspace: createWorkspaceProvider({ mode: 'copy' }),
      },
    );
    expect(run.result.status).toBe('success');
    // The user's directory is untouched; the copy holds the change.
    expect(existsSync(join(run.workdir, 'data.txt'))).toBe(false);
    const copy = join(run.logsRoot, 'workspace');
    expect(readFileSync(join(copy, 'data.txt'), 'utf8')).toBe('x\n');
    const completed = completions(run.events).find((event) => event.nodeId === 'touch');
    expect(completed?.commit).toMatch(/^[0-9a-f]{40}$/);
    const record = workspaceRecordOf(
      JSON.parse(readFileSync(join(run.logsRoot, 'checkpoint.json'), 'utf8')).workspace,
    );
    expect(record).toMatchObject({ mode: 'copy', commit: completed?.commit });
    expect(await git(copy, 'show', '--name-only', '--format=%s', record!.commit)).toBe(
      'attractor: touch (visit 1, attempt 1) success\n\ndata.txt',
    );
  });
});
