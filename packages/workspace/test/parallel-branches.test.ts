import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StageCompletedEvent } from '@attractor/engine';
import { graphFrom, runDot } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { createWorkspaceProvider } from '../src/index.js';
import { git, interruptAndResume, makeRepository } from './git-fixture.js';

function fanOut(
  branches: Readonly<Record<string, string>>,
  joinAttributes = '',
  after = 'join -> exit',
): string {
  const ids = Object.keys(branches);
  return `digraph fan {
    start [shape=Mdiamond]
    fan [shape=component]
    ${ids.map((id) => `${id} [shape=parallelogram, tool_command="${branches[id]}"]`).join('\n    ')}
    join [shape=tripleoctagon${joinAttributes}]
    exit [shape=Msquare]
    start -> fan
    ${ids.map((id) => `fan -> ${id} -> join`).join('\n    ')}
    ${after}
  }`;
}

describe('parallel branches in worktrees of their own (README "Workspaces")', () => {
  it('runs each branch in its own worktree from the fan-out commit and merges three branches writing different files', async () => {
    const repo = await makeRepository();
    const run = await runDot(
      fanOut({
        a: 'echo a > a.txt && pwd > /dev/null',
        b: 'echo b > b.txt && test ! -e a.txt',
        c: 'echo c > c.txt && test ! -e b.txt',
      }),
      {
        registry: createDefaultRegistry(),
        workdir: repo,
        logsRoot: join(repo, '.attractor', 'runs', 'p1'),
        workspace: createWorkspaceProvider(),
      },
    );
    expect(run.result.status).toBe('success');
    const worktree = join(run.logsRoot, 'workspace');
    // Each branch succeeded (a failed one names its reason here rather than as a missing file below).
    const branchOutcomes = run.events
      .filter(
        (event): event is StageCompletedEvent =>
          event.type === 'stage.completed' && (event.branchPath?.length ?? 0) > 0,
      )
      .map((event) => ({ node: event.nodeId, status: event.status, reason: event.failureReason }));
    expect(branchOutcomes.sort((x, y) => x.node.localeCompare(y.node))).toEqual(
      ['a', 'b', 'c'].map((node) => ({ node, status: 'success', reason: undefined })),
    );
    for (const name of ['a', 'b', 'c']) {
      expect(readFileSync(join(worktree, `${name}.txt`), 'utf8')).toBe(`${name}\n`);
    }
    // Each branch committed on a branch of its own; the fan-in merged them one by one.
    expect(await git(repo, 'show', '--name-only', '--format=', 'attractor/p1@fan/b')).toBe('b.txt');
    const subjects = (await git(repo, 'log', '--first-parent', '--format=%s', 'attractor/p1')).split('\n');
    expect(subjects.slice(0, 3)).toEqual([
      'attractor: join merges branch c (attractor/p1@fan/c)',
      'attractor: join merges branch b (attractor/p1@fan/b)',
      'attractor: join merges branch a (attractor/p1@fan/a)',
    ]);
    const join_ = run.events.find(
      (event): event is StageCompletedEvent => event.type === 'stage.completed' && event.nodeId === 'join',
    );
    expect(join_?.commit).toBe(await git(repo, 'rev-parse', 'attractor/p1'));
    expect(join_?.notes).toContain('files of branches a, b, c merged with git');
    // Merged, the branches' worktrees are gone (no checkout per branch left behind); their branches stay.
    expect(existsSync(join(run.logsRoot, 'workspace-branches', 'fan', 'a'))).toBe(false);
    expect(await git(repo, 'worktree', 'list', '--porcelain')).not.toContain('attractor/p1@fan/');
    expect(await git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/attractor/p1@fan/')).toBe(
      'attractor/p1@fan/a\nattractor/p1@fan/b\nattractor/p1@fan/c',
    );
  });

  it('fails the fan-in on a conflict, naming the path and branches, and a resolver stage on the fail edge finishes the run', async () => {
    const repo = await makeRepository();
    const run = await runDot(
      fanOut(
        {
          left: "sed -i 's/line 2/left/' src/app.txt",
          right: "sed -i 's/line 2/right/' src/app.txt",
        },
        ', join_merge=git',
        `join -> exit [condition="outcome=success"]
    join -> resolve [condition="outcome=fail"]
    resolve [shape=parallelogram, tool_command="grep -c '<<<<<<<' src/app.txt > markers.txt; printf 'line 1\\\\nboth\\\\nline 3\\\\n' > src/app.txt"]
    resolve -> exit`,
      ),
      {
        registry: createDefaultRegistry(),
        workdir: repo,
        logsRoot: join(repo, '.attractor', 'runs', 'p2'),
        workspace: createWorkspaceProvider(),
      },
    );
    expect(run.result.status).toBe('success');
    const joined = run.events.find(
      (event): event is StageCompletedEvent => event.type === 'stage.completed' && event.nodeId === 'join',
    );
    expect(joined?.status).toBe('fail');
    expect(joined?.failureReason).toBe(
      'merge conflict at fan-in "join": branch right (attractor/p2@fan/right) conflicts with branch left in src/app.txt; the conflicted files, with conflict markers, are in the workspace for a resolver stage (an edge on outcome=fail)',
    );
    // The fan-in's commit keeps the conflicted tree; the resolver saw the markers and resolved them.
    expect(await git(repo, 'show', `${joined?.commit}:src/app.txt`)).toContain('<<<<<<<');
    const worktree = join(run.logsRoot, 'workspace');
    expect(readFileSync(join(worktree, 'markers.txt'), 'utf8').trim()).toBe('1');
    expect(readFileSync(join(worktree, 'src/app.txt'), 'utf8')).toBe('line 1\nboth\nline 3\n');
    expect(await git(worktree, 'status', '--porcelain')).toBe('');
  });

  it('takes only the selected branch with join_merge=pick, and no files with none', async () => {
    const repo = await makeRepository();
    const pick = await runDot(
      fanOut({ a: 'echo a > a.txt', b: 'echo b > b.txt && exit 1' }, ', join_merge=pick'),
      {
        registry: createDefaultRegistry(),
        workdir: repo,
        logsRoot: join(repo, '.attractor', 'runs', 'p3'),
        workspace: createWorkspaceProvider(),
      },
    );
    expect(pick.result.status).toBe('success');
    expect(await git(repo, 'ls-tree', '--name-only', 'attractor/p3')).toContain('a.txt');
    expect(await git(repo, 'ls-tree', '--name-only', 'attractor/p3')).not.toContain('b.txt');

    const none = await runDot(fanOut({ a: 'echo a > a.txt' }, ', join_merge=none'), {
      registry: createDefaultRegistry(),
      workdir: repo,
      logsRoot: join(repo, '.attractor', 'runs', 'p4'),
      workspace: createWorkspaceProvider(),
    });
    expect(none.result.status).toBe('success');
    expect(await git(repo, 'ls-tree', '--name-only', 'attractor/p4')).not.toContain('a.txt');
  });

  it('keeps what an interrupted branch left as a patch of the parallel stage when the run resumes', async () => {
    const repo = await makeRepository();
    const graph = graphFrom(
      fanOut({
        quick: 'echo quick > quick.txt',
        slow: 'echo half > half.txt; while [ ! -e \\"$ATTRACTOR_LOGS_ROOT/go\\" ]; do sleep 0.05; done; echo full > slow.txt; rm half.txt',
      }),
    );
    const logsRoot = join(repo, '.attractor', 'runs', 'p5');
    const { first, resumed } = await interruptAndResume({
      graph,
      repo,
      logsRoot,
      nodeId: 'slow',
      waitFor: join(logsRoot, 'workspace-branches', 'fan', 'slow', 'half.txt'),
    });
    expect(first.status).toBe('cancelled');
    expect(resumed.status).toBe('success');
    const patch = readFileSync(
      join(logsRoot, 'fan', 'branches', 'slow', 'interrupted-changes.patch'),
      'utf8',
    );
    expect(patch).toContain('+++ b/half.txt');
    expect(await git(repo, 'ls-tree', '--name-only', 'attractor/p5')).toContain('slow.txt');
    expect(await git(repo, 'ls-tree', '--name-only', 'attractor/p5')).not.toContain('half.txt');
  });
});
