import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RunResult, resumePipeline, runPipeline, type WorkspaceProvider } from '@attractor/engine';
import { graphFrom, tempDir } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { createWorkspaceProvider, type WorkspaceProviderOptions, workspaceRecordOf } from '../src/index.js';
import { git, makeRepository, writeFiles } from './git-fixture.js';

/** `write` waits for `$ATTRACTOR_LOGS_ROOT/go` after writing half.txt: the first machine is stopped there. */
const PIPELINE = graphFrom(`digraph moves {
  start [shape=Mdiamond]
  implement [shape=parallelogram, tool_command="echo one > impl.txt && mkdir -p lib && echo lib > lib/a.txt"]
  write [shape=parallelogram, tool_command="echo half > half.txt; while [ ! -e \\"$ATTRACTOR_LOGS_ROOT/go\\" ]; do sleep 0.05; done; echo full > full.txt; rm half.txt"]
  polish [shape=parallelogram, tool_command="echo two >> impl.txt && rm lib/a.txt"]
  exit [shape=Msquare]
  start -> implement -> write -> polish -> exit
}`);

function checkpointRecord(logsRoot: string) {
  return workspaceRecordOf(JSON.parse(readFileSync(join(logsRoot, 'checkpoint.json'), 'utf8')).workspace);
}

/**
 * Runs PIPELINE on "machine A" (its own working directory and workspace root) until stage `write` has started, then
 * deletes everything of machine A but the run store (the run directory), and resumes the run on "machine B" with a
 * working directory and workspace root of its own.
 */
async function runOnTwoMachines(options: {
  readonly logsRoot: string;
  readonly machineA: WorkspaceProviderOptions;
  readonly machineB: WorkspaceProviderOptions;
  readonly workdirA: string;
  readonly workdirB: string;
  readonly removeA: readonly string[];
}): Promise<{ readonly first: RunResult; readonly resumed: RunResult }> {
  const controller = new AbortController();
  const first = await runPipeline({
    graph: PIPELINE,
    registry: createDefaultRegistry(),
    workdir: options.workdirA,
    logsRoot: options.logsRoot,
    workspace: createWorkspaceProvider(options.machineA),
    abortSignal: controller.signal,
    onEvent: (event) => {
      if (event.type !== 'stage.started' || event.nodeId !== 'write') return;
      const worktree = checkpointRecord(options.logsRoot)?.worktree ?? '';
      const wait = () => (existsSync(join(worktree, 'half.txt')) ? controller.abort() : setTimeout(wait, 20));
      wait();
    },
  });
  for (const path of options.removeA) rmSync(path, { recursive: true, force: true });
  writeFileSync(join(options.logsRoot, 'go'), '');
  const resumed = await resumePipeline({
    graph: PIPELINE,
    registry: createDefaultRegistry(),
    workdir: options.workdirB,
    logsRoot: options.logsRoot,
    workspace: createWorkspaceProvider(options.machineB),
  });
  return { first, resumed };
}

/** The run's last commit's tree, in the repository `repository`. */
async function treeOf(repository: string, commit: string): Promise<string> {
  return git(repository, 'rev-parse', `${commit}^{tree}`);
}

/** An uninterrupted run of PIPELINE with `provider`; returns its last commit. */
async function referenceRun(workdir: string, logsRoot: string, provider: WorkspaceProvider): Promise<string> {
  mkdirSync(logsRoot, { recursive: true });
  writeFileSync(join(logsRoot, 'go'), '');
  const result = await runPipeline({
    graph: PIPELINE,
    registry: createDefaultRegistry(),
    workdir,
    logsRoot,
    workspace: provider,
  });
  expect(result.status).toBe('success');
  return checkpointRecord(logsRoot)!.commit;
}

describe('a run that moves between machines (README "Workspaces", "Across machines")', () => {
  it('through a shared repository: started from its HEAD on one machine, fetched and finished on another, the branch pushed there', async () => {
    const project = await makeRepository();
    const remote = join(tempDir('workspace-remote-'), 'shared.git');
    await git(project, 'clone', '-q', '--bare', project, remote);
    const base = tempDir('workspace-machines-');
    const [a, b] = [join(base, 'a'), join(base, 'b')];
    for (const dir of [join(a, 'work'), join(b, 'work')]) mkdirSync(dir, { recursive: true });
    const logsRoot = join(base, 'store', 'r1');

    const { first, resumed } = await runOnTwoMachines({
      logsRoot,
      workdirA: join(a, 'work'),
      workdirB: join(b, 'work'),
      machineA: { root: join(a, 'workspaces'), remote, mode: 'git' },
      machineB: { root: join(b, 'workspaces'), remote },
      removeA: [a],
    });
    expect(first.status).toBe('cancelled');
    expect(resumed.status).toBe('success');
    // Machine B worked in a worktree of its own repository, fetched from the shared one.
    const record = checkpointRecord(logsRoot)!;
    expect(record).toMatchObject({
      worktree: join(b, 'workspaces', 'r1'),
      repository: join(b, 'workspaces', 'repository.git'),
      ref: 'attractor/r1',
    });
    // The shared repository has the run's branch at its last commit, started from its HEAD.
    expect(await git(remote, 'rev-parse', 'attractor/r1')).toBe(record.commit);
    expect(await git(remote, 'rev-parse', `${record.base}`)).toBe(await git(remote, 'rev-parse', 'main'));
    expect(await git(remote, 'ls-tree', '-r', '--name-only', 'attractor/r1')).toBe(
      ['.gitignore', 'README.md', 'full.txt', 'impl.txt', 'src/app.txt'].join('\n'),
    );
    expect(readFileSync(join(b, 'workspaces', 'r1', 'impl.txt'), 'utf8')).toBe('one\ntwo\n');

    const referenceCommit = await referenceRun(
      join(b, 'work'),
      join(base, 'store', 'reference'),
      createWorkspaceProvider({ root: join(b, 'workspaces'), remote, mode: 'git' }),
    );
    expect(await treeOf(remote, record.commit)).toBe(await treeOf(remote, referenceCommit));
  });

  it('through bundles in the run store: a copy run resumed where its first machine left nothing', async () => {
    const base = tempDir('workspace-machines-');
    const source = join(base, 'source');
    writeFiles(source, { 'data.txt': 'data\n', 'docs/readme.txt': 'docs\n' });
    const [a, b] = [join(base, 'a'), join(base, 'b')];
    mkdirSync(join(b, 'work'), { recursive: true });
    const logsRoot = join(base, 'store', 'r2');

    const { first, resumed } = await runOnTwoMachines({
      logsRoot,
      workdirA: source,
      workdirB: join(b, 'work'),
      machineA: { root: join(a, 'workspaces'), mode: 'copy', bundles: true },
      machineB: { root: join(b, 'workspaces') },
      removeA: [a, source],
    });
    expect(first.status).toBe('cancelled');
    expect(resumed.status).toBe('success');
    // Machine A left bundles of its commits in the run store (the start, then implement's commit).
    expect(readdirSync(join(logsRoot, 'artifacts')).sort()).toEqual([
      'workspace-bundle-000001.json',
      'workspace-bundle-000002.json',
    ]);
    const record = checkpointRecord(logsRoot)!;
    expect(record).toMatchObject({ mode: 'copy', worktree: join(b, 'workspaces', 'r2') });
    const repository = record.repository;
    expect(repository).toBe(join(b, 'workspaces', 'r2.git'));
    expect(await git(repository, 'ls-tree', '-r', '--name-only', record.commit)).toBe(
      ['data.txt', 'docs/readme.txt', 'full.txt', 'impl.txt'].join('\n'),
    );

    writeFiles(join(base, 'source2'), { 'data.txt': 'data\n', 'docs/readme.txt': 'docs\n' });
    const referenceRoot = join(base, 'store', 'reference');
    const referenceCommit = await referenceRun(
      join(base, 'source2'),
      referenceRoot,
      createWorkspaceProvider({ root: join(base, 'reference-ws'), mode: 'copy' }),
    );
    expect(await treeOf(repository, record.commit)).toBe(
      await treeOf(join(base, 'reference-ws', 'reference.git'), referenceCommit),
    );
  });

  it('refuses to resume, naming the fix, when the commits are neither here nor shared', async () => {
    const base = tempDir('workspace-machines-');
    const source = join(base, 'source');
    writeFiles(source, { 'data.txt': 'data\n' });
    const logsRoot = join(base, 'store', 'r3');
    const resumed = runOnTwoMachines({
      logsRoot,
      workdirA: source,
      workdirB: source,
      machineA: { root: join(base, 'a'), mode: 'copy' },
      machineB: { root: join(base, 'b') },
      removeA: [join(base, 'a')],
    });
    await expect(resumed).rejects.toThrow(
      /Cannot resume run r3 here: its workspace's commit [0-9a-f]{12} \(branch attractor\/r3\) is not in .* on this machine, and the run store holds no bundle with it\. .*--workspace-remote/,
    );
  });
});
