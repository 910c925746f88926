import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { attractor as run, temporaryDirectory, waitForBanner } from './helpers/cli.js';

/** The CLI with the default workspace mode (`auto`), not the in-place one the other tests use. */
const attractor = (args: readonly string[], options: { readonly cwd: string }) =>
  run(args, { ...options, env: { ATTRACTOR_WORKSPACE: 'auto' } });

/** git as the test's user (the run's own commits are Attractor's). */
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

/** `write` leaves half.txt and waits for $ATTRACTOR_LOGS_ROOT/go before it finishes (the first run is killed there). */
const PIPELINE = `digraph edits {
  start [shape=Mdiamond]
  implement [shape=parallelogram, tool_command="echo one > impl.txt"]
  write [shape=parallelogram, tool_command="echo half > half.txt; while [ ! -e \\"$ATTRACTOR_LOGS_ROOT/go\\" ]; do sleep 0.05; done; echo full > full.txt; rm half.txt"]
  polish [shape=parallelogram, tool_command="echo two >> impl.txt"]
  exit [shape=Msquare]
  start -> implement -> write -> polish -> exit
}
`;

async function makeProject(): Promise<string> {
  const repo = await temporaryDirectory('attractor-ws-');
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'config', 'user.name', 'Test User');
  await git(repo, 'config', 'user.email', 'user@example.com');
  await writeFile(join(repo, '.gitignore'), '.attractor/\n');
  await writeFile(join(repo, 'pipeline.dot'), PIPELINE);
  await writeFile(join(repo, 'notes.txt'), 'notes\n');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'initial');
  return repo;
}

async function waitForFile(path: string): Promise<void> {
  for (;;) {
    try {
      await access(path);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function finishedRun(repo: string, name: string) {
  const logsDir = join('.attractor', 'runs', name);
  await execa('mkdir', ['-p', join(repo, logsDir)]);
  await writeFile(join(repo, logsDir, 'go'), '');
  const result = await attractor(['run', 'pipeline.dot', '--logs-dir', logsDir], { cwd: repo });
  expect(result.exitCode).toBe(0);
  return { logsDir, result };
}

describe('attractor run with a git workspace (README "Workspaces")', () => {
  it("kill -9 in the middle of a tool stage, then resume: the worktree is back at the checkpoint commit, the half-written file is in the stage patch, and the final tree equals an uninterrupted run's", async () => {
    const repo = await makeProject();
    const reference = await finishedRun(repo, 'reference');
    expect(reference.result.stdout).toMatch(
      /Workspace: git worktree \.attractor\/runs\/reference\/workspace on branch attractor\/reference \(from [0-9a-f]{12}\)/,
    );

    const logsDir = join('.attractor', 'runs', 'killed');
    const child = attractor(['run', 'pipeline.dot', '--logs-dir', logsDir], { cwd: repo });
    await waitForFile(join(repo, logsDir, 'workspace', 'half.txt'));
    child.kill('SIGKILL');
    await child;
    const checkpoint = JSON.parse(await readFile(join(repo, logsDir, 'checkpoint.json'), 'utf8'));
    expect(checkpoint.next_node).toBe('write');

    // The killed runner's command still runs; resume ends it before it keeps the worktree's leftovers and resets it.
    const resuming = attractor(['resume', logsDir], { cwd: repo });
    await waitForFile(join(repo, logsDir, 'write', 'interrupted-changes.patch'));
    await writeFile(join(repo, logsDir, 'go'), '');
    const resumed = await resuming;
    expect(resumed.exitCode).toBe(0);
    // It names the checkpoint's commit it continues at and the commit the run started from (a new user read the
    // checkpoint's commit as the start).
    expect(resumed.stdout).toContain(
      `Workspace: git worktree .attractor/runs/killed/workspace on branch attractor/killed (at ${checkpoint.workspace.commit.slice(0, 12)}, started from ${checkpoint.workspace.base.slice(0, 12)})`,
    );
    expect(checkpoint.workspace.commit).not.toBe(checkpoint.workspace.base);
    const patch = await readFile(join(repo, logsDir, 'write', 'interrupted-changes.patch'), 'utf8');
    expect(patch).toContain('+++ b/half.txt');
    // The stage ran again on the checkpoint's commit: the final trees of both runs are the same.
    expect(await git(repo, 'rev-parse', 'attractor/killed^{tree}')).toBe(
      await git(repo, 'rev-parse', 'attractor/reference^{tree}'),
    );
    expect(await git(repo, 'rev-parse', 'attractor/killed~2')).toBe(checkpoint.workspace.commit);
    expect(await git(join(repo, logsDir, 'workspace'), 'status', '--porcelain')).toBe('');
    // The user's checkout never changed.
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  });

  it('says on stderr that a run which changed no file has an empty diff (a new user read the silence as a fault)', async () => {
    const repo = await makeProject();
    await writeFile(
      join(repo, 'quiet.dot'),
      'digraph quiet { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
    );
    const logsDir = join('.attractor', 'runs', 'quiet');
    const finished = await attractor(['run', 'quiet.dot', '--logs-dir', logsDir, '-q'], { cwd: repo });
    expect(finished.exitCode, finished.stderr).toBe(0);
    const diff = await attractor(['diff', logsDir], { cwd: repo });
    expect(diff.exitCode).toBe(0);
    expect(diff.stdout).toBe('');
    expect(diff.stderr).toBe('The run changed no file.');
  });

  it('forks at implement@1 with its files, shows diffs, applies as merge, squash and patch, refuses a conflicting tree, and cleans up', async () => {
    const repo = await makeProject();
    const { logsDir } = await finishedRun(repo, 'source');
    const implement = JSON.parse(await readFile(join(repo, logsDir, 'implement', 'status.json'), 'utf8'));

    const forkDir = join('.attractor', 'runs', 'forked');
    await execa('mkdir', ['-p', join(repo, forkDir)]);
    await writeFile(join(repo, forkDir, 'go'), '');
    const fork = await attractor(['fork', logsDir, '--at', 'implement@1', '--logs-dir', forkDir], {
      cwd: repo,
    });
    expect(fork.exitCode).toBe(0);
    expect(fork.stdout).toContain(`on branch attractor/forked (from ${implement.commit.slice(0, 12)})`);
    expect(await git(repo, 'rev-parse', 'attractor/forked~2')).toBe(implement.commit);

    const diff = await attractor(['diff', logsDir, 'implement'], { cwd: repo });
    expect(diff.exitCode).toBe(0);
    expect(diff.stdout).toContain('+++ b/impl.txt\n@@ -0,0 +1 @@\n+one');
    const whole = await attractor(['diff', logsDir, '--stat'], { cwd: repo });
    expect(whole.stdout).toContain('full.txt');
    expect(whole.stdout).toContain('impl.txt');
    // A stage that changed nothing has an empty diff, not a usage error (a new user got exit 2).
    const noChange = await attractor(['diff', logsDir, 'start'], { cwd: repo });
    expect(noChange.exitCode).toBe(0);
    expect(noChange.stdout).toBe('');
    expect(noChange.stderr).toBe('Stage start@1 changed no file.');

    // Refused, changing nothing, when the checkout's own change is in the way.
    await writeFile(join(repo, 'impl.txt'), 'mine\n');
    const refused = await attractor(['apply', logsDir], { cwd: repo });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('impl.txt');
    expect(refused.stderr).toContain('Nothing was changed');
    expect(await readFile(join(repo, 'impl.txt'), 'utf8')).toBe('mine\n');
    const refusedPatch = await attractor(['apply', logsDir, '--patch'], { cwd: repo });
    expect(refusedPatch.exitCode).toBe(1);
    await execa('rm', [join(repo, 'impl.txt')]);

    const patched = await attractor(['apply', logsDir, '--patch'], { cwd: repo });
    expect(patched.exitCode).toBe(0);
    expect(await git(repo, 'status', '--porcelain', '--', 'impl.txt', 'full.txt')).toBe(
      '?? full.txt\n?? impl.txt',
    );
    await execa('rm', [join(repo, 'impl.txt'), join(repo, 'full.txt')]);

    const squashed = await attractor(['apply', logsDir, '--squash'], { cwd: repo });
    expect(squashed.exitCode).toBe(0);
    expect(await git(repo, 'diff', '--cached', '--name-only')).toBe('full.txt\nimpl.txt');
    await git(repo, 'reset', '-q', '--hard');

    const merged = await attractor(['apply', logsDir, '--merge'], { cwd: repo });
    expect(merged.exitCode).toBe(0);
    expect(await git(repo, 'log', '-1', '--format=%s|%an', 'main')).toBe(
      'Merge attractor/source (attractor run)|Test User',
    );
    expect(await readFile(join(repo, 'impl.txt'), 'utf8')).toBe('one\ntwo\n');
    // Applied again once merged: the changes are there already, and nothing of the user's is in the way (a new user
    // was told to commit or stash changes they did not have).
    const head = await git(repo, 'rev-parse', 'HEAD');
    for (const method of ['--patch', '--squash', '--merge']) {
      const again = await attractor(['apply', logsDir, method], { cwd: repo });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stdout).toBe(
        "The run's changes to full.txt, impl.txt are already in .; nothing was changed.",
      );
    }
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(await git(repo, 'status', '--porcelain')).toBe('');

    await execa('rm', ['-rf', join(repo, forkDir)]);
    const cleaned = await attractor(['clean'], { cwd: repo });
    expect(cleaned.exitCode).toBe(0);
    expect(cleaned.stdout).toContain('Removed worktree .attractor/runs/source/workspace');
    expect(cleaned.stdout).toContain('Removed branch attractor/forked');
    expect(await git(repo, 'branch', '--list', 'attractor/*')).toBe('  attractor/source');
    expect((await git(repo, 'worktree', 'list')).split('\n')).toHaveLength(1);
  });

  it('clean with the runs directory outside the project: keeps the branches of runs it cannot see, and removes the worktree and branch of a deleted run from either directory (a new user found both wrong)', async () => {
    const home = await temporaryDirectory('attractor-ws-home-');
    const proj = join(home, 'proj');
    await execa('mkdir', ['-p', proj]);
    await git(proj, 'init', '-q', '-b', 'main');
    await writeFile(join(proj, 'pipeline.dot'), PIPELINE.replace(/while .*done; /, ''));
    await git(proj, 'add', '-A');
    await git(proj, 'commit', '-q', '-m', 'initial');
    for (const name of ['kept', 'finished', 'deleted']) {
      const made = await attractor(
        [
          'run',
          'proj/pipeline.dot',
          '--workdir',
          'proj',
          '--logs-dir',
          join('.attractor', 'runs', name),
          '-q',
        ],
        { cwd: home },
      );
      expect(made.exitCode, made.stderr).toBe(0);
    }
    expect(await git(proj, 'branch', '--list', 'attractor/*')).toBe(
      '+ attractor/deleted\n+ attractor/finished\n+ attractor/kept',
    );
    // What `DELETE /pipelines/{id}` does on disk: the run directory, with the worktree in it, is gone.
    await execa('rm', ['-rf', join(home, '.attractor', 'runs', 'deleted')]);
    expect(await git(proj, 'worktree', 'list')).toMatch(/deleted\/workspace .* prunable/);

    // From the project: the runs directory (./.attractor/runs) is not there; only the deleted run is an orphan.
    const runs = join(home, '.attractor', 'runs');
    const fromProject = await attractor(['clean', '--dry-run'], { cwd: proj });
    expect(fromProject.exitCode, fromProject.stderr).toBe(0);
    expect(fromProject.stdout.split('\n').sort()).toEqual(
      [
        `Would remove worktree ${runs}/deleted/workspace`,
        'Would remove branch attractor/deleted',
        `Kept branch attractor/finished: its run directory ${runs}/finished is in another runs directory (attractor clean --runs-dir ${runs} cleans it).`,
        `Kept branch attractor/kept: its run directory ${runs}/kept is in another runs directory (attractor clean --runs-dir ${runs} cleans it).`,
      ].sort(),
    );

    // From the directory holding the runs (not a repository): the runs' repository is asked for leftovers too.
    const fromRuns = await attractor(['clean', '--dry-run'], { cwd: home });
    expect(fromRuns.exitCode, fromRuns.stderr).toBe(0);
    expect(fromRuns.stdout.split('\n').sort()).toEqual(
      [
        'Would remove worktree .attractor/runs/kept/workspace',
        'Would remove worktree .attractor/runs/finished/workspace',
        'Would remove worktree .attractor/runs/deleted/workspace',
        'Would remove branch attractor/deleted',
      ].sort(),
    );
    expect((await git(proj, 'worktree', 'list')).split('\n')).toHaveLength(4);

    const cleaned = await attractor(['clean'], { cwd: home });
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(await git(proj, 'branch', '--list', 'attractor/*')).toBe('  attractor/finished\n  attractor/kept');
    expect((await git(proj, 'worktree', 'list')).split('\n')).toHaveLength(1);

    // With no worktree left to tell where its run was, a branch of a run the runs directory does not hold is kept.
    const afterwards = await attractor(['clean', '--dry-run'], { cwd: proj });
    expect(afterwards.stdout).toContain('Nothing to clean.');
    expect(afterwards.stdout).toContain(
      'Kept branch attractor/kept: its run is not in .attractor/runs and its run directory could not be found (give its runs directory: attractor clean --runs-dir <dir>).',
    );
    expect(await git(proj, 'branch', '--list', 'attractor/*')).toBe('  attractor/finished\n  attractor/kept');
  });

  it('says when it works in place, and refuses --workspace git outside a repository', async () => {
    const dir = await temporaryDirectory('attractor-ws-plain-');
    await writeFile(join(dir, 'pipeline.dot'), PIPELINE.replace(/while .*done; /, ''));
    const inPlace = await attractor(['run', 'pipeline.dot', '--logs-dir', 'run'], { cwd: dir });
    expect(inPlace.exitCode).toBe(0);
    expect(inPlace.stdout).toContain('Workspace: in place, . (files change there directly)');
    const refused = await attractor(['run', 'pipeline.dot', '--logs-dir', 'run2', '--workspace', 'git'], {
      cwd: dir,
    });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('--workspace copy');
  });

  it("leaves out join_merge's git-worktree warning when auto works in place outside a repository, and keeps it inside one", async () => {
    const parallel = `digraph fanout {
  start [shape=Mdiamond]
  split [shape=component]
  left [shape=parallelogram, tool_command="echo left > left.txt"]
  right [shape=parallelogram, tool_command="echo right > right.txt"]
  join [shape=tripleoctagon]
  exit [shape=Msquare]
  start -> split
  split -> left -> join
  split -> right -> join
  join -> exit
}
`;
    const dir = await temporaryDirectory('attractor-ws-plain-');
    await writeFile(join(dir, 'parallel.dot'), parallel);
    const outside = await attractor(['run', 'parallel.dot', '--logs-dir', 'run'], { cwd: dir });
    expect(outside.stdout).toContain('Workspace: in place, .');
    expect(outside.stderr).not.toContain('join_merge');
    expect(outside.exitCode).toBe(0);

    const repo = await makeProject();
    await writeFile(join(repo, 'parallel.dot'), parallel);
    const inside = await attractor(['run', 'parallel.dot', '--logs-dir', '.attractor/runs/fanout'], {
      cwd: repo,
    });
    expect(inside.stdout).toContain('Workspace: git worktree');
    expect(inside.stderr).toContain('warning[join_merge]');
    expect(inside.exitCode).toBe(0);
  });

  it('serve --workspace git runs each started run in a worktree with a commit per stage', async () => {
    const repo = await makeProject();
    const child = run(['serve', '--port', '0', '--allow-tools', '--workspace', 'git'], { cwd: repo });
    try {
      const { url, token } = await waitForBanner(child);
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      const dot =
        'digraph t { start [shape=Mdiamond]; edit [shape=parallelogram, tool_command="echo served > served.txt"]; done [shape=Msquare]; start -> edit -> done }';
      const started = await fetch(`${url}/pipelines`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ dot }),
      });
      expect(started.status).toBe(201);
      const { id } = (await started.json()) as { id: string };
      let state = '';
      while (state !== 'success' && state !== 'fail') {
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = ((await (await fetch(`${url}/pipelines/${id}`, { headers })).json()) as { state: string })
          .state;
      }
      expect(state).toBe('success');
      expect(await git(repo, 'show', '--name-only', '--format=%an', `attractor/${id}`)).toBe(
        'Attractor\n\nserved.txt',
      );
      expect(await git(repo, 'status', '--porcelain')).toBe('');
    } finally {
      child.kill('SIGTERM');
      await child;
    }
  });
});
