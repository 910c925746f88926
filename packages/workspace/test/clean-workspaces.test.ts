import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runDot, tempDir } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { cleanWorkspaces, createWorkspaceProvider } from '../src/index.js';
import { git, makeRepository } from './git-fixture.js';

const CHAIN = `digraph chain {
  start [shape=Mdiamond]
  write [shape=parallelogram, tool_command="echo changed >> src/app.txt"]
  exit [shape=Msquare]
  start -> write -> exit
}`;

describe('cleanWorkspaces with runs it was not given (README "Workspaces", attractor clean)', () => {
  it('removes a deleted run whose worktree was in its run directory, and keeps a run whose worktree is under a workspace root', async () => {
    const repo = await makeRepository();
    const runs = tempDir('workspace-runs-');
    const root = tempDir('workspace-root-');
    const inRunDirectory = await runDot(CHAIN, {
      registry: createDefaultRegistry(),
      workdir: repo,
      logsRoot: join(runs, 'gone'),
      workspace: createWorkspaceProvider(),
    });
    const underRoot = await runDot(CHAIN, {
      registry: createDefaultRegistry(),
      workdir: repo,
      logsRoot: join(runs, 'rooted'),
      workspace: createWorkspaceProvider({ root }),
    });
    expect([inRunDirectory.result.status, underRoot.result.status]).toEqual(['success', 'success']);
    rmSync(join(runs, 'gone'), { recursive: true });
    rmSync(join(runs, 'rooted'), { recursive: true });

    // Both run directories are gone, but only the first one's worktree says where it was: the second is kept.
    const dry = await cleanWorkspaces({ runs: [], repository: repo, dryRun: true });
    expect(dry).toEqual({
      worktrees: [join(runs, 'gone', 'workspace')],
      branches: ['attractor/gone'],
      kept: [{ branch: 'attractor/rooted' }],
    });
    expect(await git(repo, 'branch', '--list', 'attractor/*')).toBe('+ attractor/gone\n+ attractor/rooted');

    const done = await cleanWorkspaces({ runs: [], repository: repo });
    expect(done).toEqual(dry);
    expect(await git(repo, 'branch', '--list', 'attractor/*')).toBe('+ attractor/rooted');
    expect(existsSync(join(root, 'rooted'))).toBe(true);
    expect((await git(repo, 'worktree', 'list')).split('\n')).toHaveLength(2);
  });

  it('keeps the branch of a run of another runs directory whose worktree was cleaned when that directory is named (otherRunsDirectories)', async () => {
    const repo = await makeRepository();
    const local = join(repo, '.attractor', 'runs');
    const store = tempDir('workspace-store-');
    const options = {
      registry: createDefaultRegistry(),
      workdir: repo,
      workspace: createWorkspaceProvider(),
    };
    const first = await runDot(CHAIN, { ...options, logsRoot: join(local, 'here') });
    const second = await runDot(CHAIN, { ...options, logsRoot: join(store, 'there') });
    expect([first.result.status, second.result.status]).toEqual(['success', 'success']);
    const record = (runDirectory: string) =>
      JSON.parse(readFileSync(join(runDirectory, 'checkpoint.json'), 'utf8')).workspace;
    // The local run's worktree is cleaned (its branch stays): nothing in the repository points at its directory now.
    await cleanWorkspaces({ runs: [{ runId: 'here', record: record(join(local, 'here')), finished: true }] });
    expect(existsSync(join(local, 'here', 'workspace'))).toBe(false);

    const storeRuns = [{ runId: 'there', record: record(join(store, 'there')), finished: true }];
    const named = await cleanWorkspaces({
      runs: storeRuns,
      repository: repo,
      otherRunsDirectories: [local],
      dryRun: true,
    });
    expect(named.branches).toEqual([]);
    expect(named.kept).toEqual([{ branch: 'attractor/here', runDirectory: join(local, 'here') }]);
    // Without it, a run of the same repository in the cleaned directory makes the branch look deleted.
    const unnamed = await cleanWorkspaces({ runs: storeRuns, repository: repo, dryRun: true });
    expect(unnamed.branches).toEqual(['attractor/here']);
  });
});

describe('cleanWorkspaces with onlyRuns (attractor purge)', () => {
  it("removes the given runs' worktrees and branches, also once their run directory is gone, and no other run's", async () => {
    const repo = await makeRepository();
    const runs = tempDir('workspace-purged-');
    for (const name of ['purged', 'other']) {
      const { result } = await runDot(CHAIN, {
        registry: createDefaultRegistry(),
        workdir: repo,
        logsRoot: join(runs, name),
        workspace: createWorkspaceProvider(),
      });
      expect(result.status).toBe('success');
    }
    const record = JSON.parse(readFileSync(join(runs, 'purged', 'checkpoint.json'), 'utf8')).workspace;
    // Both run directories are gone: the other run's branch would be an orphan to `clean`, not to this call.
    rmSync(join(runs, 'purged'), { recursive: true });
    rmSync(join(runs, 'other'), { recursive: true });

    const report = await cleanWorkspaces({
      runs: [{ runId: 'purged', record, finished: true }],
      onlyRuns: true,
      branches: true,
      repository: repo,
    });
    expect(report).toEqual({
      worktrees: [join(runs, 'purged', 'workspace')],
      branches: ['attractor/purged'],
      kept: [],
    });
    expect(await git(repo, 'branch', '--list', 'attractor/*')).toBe('+ attractor/other');
    const worktrees = await git(repo, 'worktree', 'list');
    expect(worktrees).not.toContain(join(runs, 'purged'));
    expect(worktrees).toContain(join(runs, 'other', 'workspace'));
  });
});
