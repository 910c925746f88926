import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forkRun, type PipelineEvent, resumePipeline, runPipeline } from '@attractor/engine';
import { graphFrom, tempDir } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { applyRun, createWorkspaceProvider, workspaceRecordOf } from '../src/index.js';
import { git, interruptAndResume, makeRepository } from './git-fixture.js';

/** `write` leaves half.txt, then waits for a marker file unless it exists (the first run is interrupted there). */
const PIPELINE = `digraph edits {
  start [shape=Mdiamond]
  implement [shape=parallelogram, tool_command="echo one > impl.txt"]
  write [shape=parallelogram, tool_command="echo half > half.txt; while [ ! -e \\"$ATTRACTOR_LOGS_ROOT/go\\" ]; do sleep 0.05; done; echo full > full.txt; rm half.txt"]
  polish [shape=parallelogram, tool_command="echo two >> impl.txt"]
  exit [shape=Msquare]
  start -> implement -> write -> polish -> exit
}`;

function checkpointOf(logsRoot: string) {
  return JSON.parse(readFileSync(join(logsRoot, 'checkpoint.json'), 'utf8'));
}

describe('resume and fork with files (README "Workspaces")', () => {
  it("puts the worktree back at the checkpoint commit on resume, keeping the interrupted stage's files as a patch", async () => {
    const repo = await makeRepository();
    const graph = graphFrom(PIPELINE);
    const logsRoot = join(repo, '.attractor', 'runs', 'r1');
    const worktree = join(logsRoot, 'workspace');
    let checkpointCommit = '';
    const { first, resumed } = await interruptAndResume({
      graph,
      repo,
      logsRoot,
      nodeId: 'write',
      waitFor: join(worktree, 'half.txt'),
      between: () => {
        expect(existsSync(join(worktree, 'half.txt'))).toBe(true);
        checkpointCommit = checkpointOf(logsRoot).workspace.commit;
      },
    });
    expect(first.status).toBe('cancelled');
    expect(resumed.status).toBe('success');
    const patch = readFileSync(join(logsRoot, 'write', 'interrupted-changes.patch'), 'utf8');
    expect(patch).toContain('+++ b/half.txt');
    expect(patch).toContain('+half');
    // The stage ran again from the checkpoint's commit: the final tree is an uninterrupted run's.
    expect(await git(repo, 'show', '--name-only', '--format=', 'attractor/r1~1')).toBe('full.txt');
    expect(await git(repo, 'rev-parse', 'attractor/r1~2')).toBe(checkpointCommit);
    expect(await git(repo, 'ls-tree', '-r', '--name-only', 'attractor/r1')).toBe(
      ['.gitignore', 'README.md', 'full.txt', 'impl.txt', 'src/app.txt'].join('\n'),
    );
    expect(await git(worktree, 'status', '--porcelain')).toBe('');
  });

  it('resumes a run that failed on the fix made in its worktree since (committed or not), kept as one commit on the checkpoint', async () => {
    const repo = await makeRepository({ 'check.sh': 'exit 1\n' });
    const graph = graphFrom(`digraph checked {
      start [shape=Mdiamond]
      prepare [shape=parallelogram, tool_command="echo ready > ready.txt"]
      check [shape=parallelogram, tool_command="sh check.sh"]
      exit [shape=Msquare]
      start -> prepare -> check -> exit
    }`);
    const logsRoot = join(repo, '.attractor', 'runs', 'fix-run');
    const worktree = join(logsRoot, 'workspace');
    const first = await runPipeline({
      graph,
      registry: createDefaultRegistry(),
      workdir: repo,
      logsRoot,
      workspace: createWorkspaceProvider(),
    });
    expect(first.status).toBe('fail');
    const failedAt = checkpointOf(logsRoot).workspace.commit;
    expect(await git(worktree, 'status', '--porcelain')).toBe('');
    // The fix: the script committed on the run's branch in its worktree, and a note left uncommitted.
    writeFileSync(join(worktree, 'check.sh'), 'exit 0\n');
    await git(worktree, 'commit', '-q', '-am', 'fix the check');
    writeFileSync(join(worktree, 'notes.txt'), 'fixed by hand\n');

    const events: PipelineEvent[] = [];
    const resumed = await resumePipeline({
      graph,
      registry: createDefaultRegistry(),
      workdir: repo,
      logsRoot,
      workspace: createWorkspaceProvider(),
      onEvent: (event) => events.push(event),
    });
    expect(resumed.status).toBe('success');
    // One commit on the checkpoint's commit holds both changes; the stage ran on it (it changed nothing).
    const kept = await git(repo, 'rev-parse', 'attractor/fix-run');
    expect(await git(repo, 'rev-parse', 'attractor/fix-run~1')).toBe(failedAt);
    expect(await git(repo, 'log', '-1', '--format=%s', kept)).toBe(
      'attractor: changes made while run fix-run was stopped',
    );
    expect((await git(repo, 'show', '--name-only', '--format=', kept)).split('\n').sort()).toEqual([
      'check.sh',
      'notes.txt',
    ]);
    expect(await git(repo, 'show', `${kept}:check.sh`)).toBe('exit 0');
    expect(checkpointOf(logsRoot).workspace.commit).toBe(kept);
    expect(existsSync(join(logsRoot, 'check', 'interrupted-changes.patch'))).toBe(false);
    expect(
      events.find(
        (event) => event.type === 'stage.log' && event.message.includes('changed since the run stopped'),
      ),
    ).toMatchObject({
      nodeId: 'check',
      message: expect.stringContaining(
        `2 file(s) changed since the run stopped (check.sh, notes.txt): kept as commit ${kept.slice(0, 12)} on attractor/fix-run`,
      ),
    });
    expect(await git(worktree, 'status', '--porcelain')).toBe('');
  });

  it("keeps as a patch, not as a fix, what an older commit checked out or an earlier kept resume's dead stage left", async () => {
    const repo = await makeRepository({ 'check.sh': 'exit 1\n' });
    const graph = graphFrom(`digraph checked {
      start [shape=Mdiamond]
      prepare [shape=parallelogram, tool_command="echo ready > ready.txt"]
      check [shape=parallelogram, tool_command="sh check.sh"]
      exit [shape=Msquare]
      start -> prepare -> check -> exit
    }`);
    const logsRoot = join(repo, '.attractor', 'runs', 'guarded');
    const worktree = join(logsRoot, 'workspace');
    const run = () =>
      resumePipeline({
        graph,
        registry: createDefaultRegistry(),
        workdir: repo,
        logsRoot,
        workspace: createWorkspaceProvider(),
      });
    const first = await runPipeline({
      graph,
      registry: createDefaultRegistry(),
      workdir: repo,
      logsRoot,
      workspace: createWorkspaceProvider(),
    });
    expect(first.status).toBe('fail');
    const failedAt = checkpointOf(logsRoot).workspace.commit;
    const subjects = async () => (await git(repo, 'log', '--format=%s', 'attractor/guarded')).split('\n');

    // The start commit checked out (detached) with an edit: taken as the fix, it would undo `prepare`.
    await git(worktree, 'checkout', '-q', '--detach', 'attractor/guarded~1');
    writeFileSync(join(worktree, 'check.sh'), 'exit 0\n');
    expect((await run()).status).toBe('fail');
    expect(await git(repo, 'rev-parse', 'attractor/guarded')).toBe(failedAt);
    expect(await subjects()).not.toContain('attractor: changes made while run guarded was stopped');
    // The leftovers are kept as a patch among the stage's files (where depends on its visits).
    const patches = execFileSync('find', [join(logsRoot, 'check'), '-name', 'interrupted-changes*.patch'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    expect(patches).toHaveLength(1);
    expect(readFileSync(patches[0]!, 'utf8')).toContain('ready.txt');

    // A kept fix whose resumed stage then died with its files half written: those files are no fix.
    writeFileSync(join(worktree, 'check.sh'), 'exit 0\n');
    await git(worktree, 'commit', '-q', '-am', 'attractor: changes made while run guarded was stopped');
    writeFileSync(join(worktree, 'half.txt'), 'half\n');
    expect((await run()).status).toBe('fail');
    expect(await git(repo, 'rev-parse', 'attractor/guarded')).toBe(failedAt);
    expect(await git(worktree, 'status', '--porcelain')).toBe('');
  });

  it("forks at implement@1 from that stage's commit in a new worktree and branch", async () => {
    const repo = await makeRepository();
    const graph = graphFrom(PIPELINE);
    const logsRoot = join(repo, '.attractor', 'runs', 'src-run');
    mkdirSync(logsRoot, { recursive: true });
    writeFileSync(join(logsRoot, 'go'), '');
    const source = await runPipeline({
      graph,
      registry: createDefaultRegistry(),
      workdir: repo,
      logsRoot,
      workspace: createWorkspaceProvider(),
    });
    expect(source.status).toBe('success');
    const implementCommit = JSON.parse(
      readFileSync(join(logsRoot, 'implement', 'status.json'), 'utf8'),
    ).commit;

    const forkRoot = join(repo, '.attractor', 'runs', 'fork-run');
    mkdirSync(forkRoot, { recursive: true });
    writeFileSync(join(forkRoot, 'go'), '');
    const started: string[] = [];
    const fork = await forkRun({
      graph,
      registry: createDefaultRegistry(),
      from: logsRoot,
      at: 'implement@1',
      logsRoot: forkRoot,
      workdir: repo,
      workspace: createWorkspaceProvider(),
      onEvent: (event) => {
        if (event.type === 'pipeline.started') started.push(JSON.stringify(event.workspace));
      },
    });
    expect(fork.status).toBe('success');
    expect(JSON.parse(started[0]!)).toMatchObject({ branch: 'attractor/fork-run', commit: implementCommit });
    // The fork's branch starts at implement's commit and adds its own stages; the source branch is untouched.
    expect(await git(repo, 'rev-parse', 'attractor/fork-run~2')).toBe(implementCommit);
    expect(workspaceRecordOf(checkpointOf(forkRoot).workspace)).toMatchObject({
      run_id: 'fork-run',
      base: implementCommit,
      worktree: join(forkRoot, 'workspace'),
    });
    expect(await git(repo, 'rev-parse', 'attractor/src-run')).toBe(checkpointOf(logsRoot).workspace.commit);
  });
});

describe('copy workspaces (README "Workspaces")', () => {
  it('forks a copy run from a stage snapshot in a repository of its own, and applies the result as a patch', async () => {
    const dir = tempDir('workspace-copy-');
    writeFileSync(join(dir, 'data.txt'), 'original\n');
    const graph = graphFrom(`digraph copied {
      start [shape=Mdiamond]
      first [shape=parallelogram, tool_command="echo first >> data.txt"]
      second [shape=parallelogram, tool_command="echo second >> data.txt"]
      exit [shape=Msquare]
      start -> first -> second -> exit
    }`);
    const logsRoot = join(dir, '.attractor', 'runs', 'c1');
    const source = await runPipeline({
      graph,
      registry: createDefaultRegistry(),
      workdir: dir,
      logsRoot,
      workspace: createWorkspaceProvider({ mode: 'copy' }),
    });
    expect(source.status).toBe('success');
    expect(readFileSync(join(dir, 'data.txt'), 'utf8')).toBe('original\n');

    const forkRoot = join(dir, '.attractor', 'runs', 'c2');
    const fork = await forkRun({
      graph,
      registry: createDefaultRegistry(),
      from: logsRoot,
      at: 'first',
      logsRoot: forkRoot,
      workdir: dir,
      workspace: createWorkspaceProvider(),
    });
    expect(fork.status).toBe('success');
    // The fork started from first's snapshot: second ran once more on top of it, in the fork's own copy.
    expect(readFileSync(join(forkRoot, 'workspace', 'data.txt'), 'utf8')).toBe('original\nfirst\nsecond\n');
    expect(workspaceRecordOf(checkpointOf(forkRoot).workspace)).toMatchObject({
      mode: 'copy',
      repository: join(forkRoot, 'workspace.git'),
    });

    const applied = await applyRun({
      record: checkpointOf(logsRoot).workspace,
      target: dir,
      method: 'patch',
    });
    expect(applied.files).toEqual(['data.txt']);
    expect(readFileSync(join(dir, 'data.txt'), 'utf8')).toBe('original\nfirst\nsecond\n');
    await expect(
      applyRun({ record: checkpointOf(logsRoot).workspace, target: dir, method: 'merge' }),
    ).rejects.toThrow("apply the run's changes with --patch");
  });

  it('resumes a run that worked in place (one started before workspaces, or in-place) in place', async () => {
    const repo = await makeRepository();
    const graph = graphFrom(PIPELINE);
    const logsRoot = join(repo, '.attractor', 'runs', 'old');
    const { first, resumed } = await interruptAndResume({
      graph,
      repo,
      logsRoot,
      nodeId: 'write',
      waitFor: join(repo, 'half.txt'),
      mode: 'in-place',
    });
    expect(first.status).toBe('cancelled');
    expect(resumed.status).toBe('success');
    expect(checkpointOf(logsRoot).workspace).toBeUndefined();
    expect(readFileSync(join(repo, 'full.txt'), 'utf8')).toBe('full\n');
    expect(await git(repo, 'branch', '--list', 'attractor/*')).toBe('');
  });
});
