import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGitRunner, type GitRunner } from '../src/git-runner.js';
import { addWorktree } from '../src/git-workspace.js';
import { listWorktrees } from '../src/list-worktrees.js';
import { withWorktreeLock } from '../src/worktree-lock.js';
import { git, makeRepository } from './git-fixture.js';

describe('worktrees of one repository changed at the same time (worktree-lock.ts)', () => {
  it('adds 12 worktrees at once, then re-adds 3 of them (remove, prune) among 6 new ones: every one whole', async () => {
    // git alone fails here: an `add` reads the admin files another `add` is still writing ("failed to read
    // .git/worktrees/<id>/commondir"), and a `prune` removes an admin directory whose gitdir is not written yet.
    const repo = await makeRepository();
    const commit = await git(repo, 'rev-parse', 'HEAD');
    const runner = createGitRunner({ cwd: repo });
    const add = (name: string) =>
      addWorktree({
        git: runner,
        worktree: join(repo, '.attractor', 'wt', name),
        ref: `attractor/t@fan/${name}`,
        commit,
      });
    const first = Array.from({ length: 12 }, (_, index) => `b${index}`);
    await Promise.all(first.map(add));
    const second = [...first.slice(0, 3), ...Array.from({ length: 6 }, (_, index) => `c${index}`)];
    await Promise.all(second.map(add));

    const names = [...new Set([...first, ...second])];
    const listed = await listWorktrees(runner);
    expect(listed.map((worktree) => worktree.branch).sort()).toEqual(
      names.map((name) => `attractor/t@fan/${name}`).sort(),
    );
    for (const name of names) {
      expect(readFileSync(join(repo, '.attractor', 'wt', name, 'src', 'app.txt'), 'utf8')).toBe(
        'line 1\nline 2\nline 3\n',
      );
    }
    expect(await git(repo, 'worktree', 'prune', '--dry-run', '-v')).toBe('');
  });

  it('runs one change at a time per repository, whichever of its worktrees git runs in; other repositories meanwhile', async () => {
    const repo = await makeRepository();
    const other = await makeRepository();
    const commit = await git(repo, 'rev-parse', 'HEAD');
    const linked = join(repo, '.attractor', 'wt', 'linked');
    await addWorktree({ git: createGitRunner({ cwd: repo }), worktree: linked, ref: 'attractor/t', commit });
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const holding = new Promise<void>((resolve) => {
      started = resolve;
    });
    const first = withWorktreeLock(createGitRunner({ cwd: join(repo, 'src') }), async () => {
      order.push('first starts');
      started();
      await held;
      order.push('first ends');
    });
    await holding;
    const second = withWorktreeLock(createGitRunner({ cwd: linked }), async () => {
      order.push('second (same repository, its linked worktree)');
      return 2;
    });
    const elsewhere = await withWorktreeLock(createGitRunner({ cwd: other }), async () => {
      order.push('another repository');
      return 'other';
    });
    expect(elsewhere).toBe('other');
    release();
    await first;
    expect(await second).toBe(2);
    expect(order).toEqual([
      'first starts',
      'another repository',
      'first ends',
      'second (same repository, its linked worktree)',
    ]);
  });

  it('finds the queue of a worktree top without starting git: the repository itself, or a linked worktree', async () => {
    const repo = await makeRepository();
    const commit = await git(repo, 'rev-parse', 'HEAD');
    const linked = join(repo, '.attractor', 'wt', 'linked');
    await addWorktree({ git: createGitRunner({ cwd: repo }), worktree: linked, ref: 'attractor/t', commit });
    const asked: string[][] = [];
    const counting = (cwd: string): GitRunner => {
      const real = createGitRunner({ cwd });
      return {
        cwd,
        run: (args, options) => real.run(args, options),
        text: (args, options) => {
          asked.push([...args]);
          return real.text(args, options);
        },
        at: (other) => counting(other),
      };
    };
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const order: string[] = [];
    const first = withWorktreeLock(counting(repo), async () => {
      order.push('top');
      await held;
      order.push('top ends');
    });
    const second = withWorktreeLock(counting(linked), async () => {
      order.push('linked');
    });
    // The linked worktree's change waits for the top's: one queue, found from the files alone.
    await expect.poll(() => order).toEqual(['top']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['top', 'top ends', 'linked']);
    expect(asked).toEqual([]);
  });
});
