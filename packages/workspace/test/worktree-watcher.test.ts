import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StageCompletedEvent } from '@attractor/engine';
import { runDot, tempDir } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { createWorkspaceProvider } from '../src/index.js';
import { git, makeRepository } from './git-fixture.js';

/** Stages whose changes a watcher could miss: new empty directories, replaced and renamed ones, ignored ones. */
const STAGES: readonly (readonly [string, string])[] = [
  ['empty_dir', 'mkdir -p out/empty'],
  ['into_empty', 'echo x > out/empty/f.txt'],
  ['big', 'head -c 3000 /dev/zero > big.bin'],
  ['small', 'echo y > small.txt'],
  ['replace_dir', 'rm -rf src && mkdir src && echo new > src/app.txt'],
  ['into_replaced', 'echo more > src/other.txt'],
  ['ignored', 'mkdir -p node_modules/pkg && echo a > node_modules/pkg/a.js && echo l > debug.log'],
  ['ignored_again', 'echo b > node_modules/pkg/b.js && echo y > small.txt'],
  ['rename_dir', 'mv out moved'],
  ['into_renamed', 'echo z > moved/empty/g.txt'],
  ['noop', 'true'],
  ['deep', 'mkdir -p a/b/c && echo d > a/b/c/d.txt'],
  ['into_deep', 'echo e > a/b/e.txt && rm a/b/c/d.txt'],
];

const GRAPH = `digraph watched {
  start [shape=Mdiamond]
${STAGES.map(([id, command]) => `  ${id} [shape=parallelogram, tool_command="${command}"]`).join('\n')}
  exit [shape=Msquare]
  start -> ${STAGES.map(([id]) => id).join(' -> ')} -> exit
}`;

/** What each stage committed: its files (`git show --name-status`), or undefined when it made no commit. */
async function commitsByStage(
  repo: string,
  events: readonly { type: string }[],
): Promise<Record<string, string | undefined>> {
  const completed = events.filter((event): event is StageCompletedEvent => event.type === 'stage.completed');
  const result: Record<string, string | undefined> = {};
  for (const [id] of STAGES) {
    const commit = completed.find((event) => event.nodeId === id)?.commit;
    result[id] =
      commit === undefined
        ? undefined
        : await git(repo, 'show', '--no-renames', '--name-status', '--format=', commit);
  }
  return result;
}

describe('the worktree watcher (a stage that changed nothing costs no scan)', () => {
  it('commits exactly what asking git after every stage commits', async () => {
    const repo = await makeRepository();
    const runs = [];
    for (const watch of [true, false]) {
      const run = await runDot(GRAPH, {
        registry: createDefaultRegistry(),
        workdir: repo,
        logsRoot: join(repo, '.attractor', 'runs', watch ? 'watched' : 'asked'),
        workspace: createWorkspaceProvider({ maxFileBytes: 1000, watch }),
      });
      expect(run.result.status).toBe('success');
      runs.push(await commitsByStage(repo, run.events));
    }
    expect(runs[0]).toEqual({
      empty_dir: undefined,
      into_empty: 'A\tout/empty/f.txt',
      big: undefined,
      small: 'A\tsmall.txt',
      replace_dir: 'M\tsrc/app.txt',
      into_replaced: 'A\tsrc/other.txt',
      ignored: undefined,
      ignored_again: undefined,
      rename_dir: 'A\tmoved/empty/f.txt\nD\tout/empty/f.txt',
      into_renamed: 'A\tmoved/empty/g.txt',
      noop: undefined,
      deep: 'A\ta/b/c/d.txt',
      into_deep: 'D\ta/b/c/d.txt\nA\ta/b/e.txt',
    });
    expect(runs[1]).toEqual(runs[0]);
  });

  it('runs no git command for a stage that changed nothing (every git the package starts, counted)', async () => {
    const repo = await makeRepository();
    // The package's git runner starts every git through `gitPath`: this one logs each command line, then runs git.
    const dir = tempDir('workspace-git-calls-');
    const log = join(dir, 'calls.log');
    const gitPath = join(dir, 'git');
    writeFileSync(gitPath, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec git "$@"\n`, { mode: 0o755 });
    const calls = (): string[] =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
        : [];
    const stages = ['noop_1', 'noop_2', 'noop_3', 'edit', 'noop_4', 'noop_5'];
    const graph = `digraph calls {
      start [shape=Mdiamond]
      ${stages.map((id) => `${id} [shape=parallelogram, tool_command="${id === 'edit' ? 'echo changed > edited.txt' : 'true'}"]`).join('\n')}
      exit [shape=Msquare]
      start -> ${stages.join(' -> ')} -> exit
    }`;
    const runWith = async (watch: boolean) => {
      const byStage: Record<string, string[]> = {};
      let atStart = 0;
      let atFirstStage: number | undefined;
      const run = await runDot(graph, {
        registry: createDefaultRegistry(),
        workdir: repo,
        logsRoot: join(repo, '.attractor', 'runs', watch ? 'counted-watched' : 'counted-asked'),
        workspace: createWorkspaceProvider({ gitPath, watch }),
        onEvent: (event) => {
          if (event.type === 'stage.started') {
            atStart = calls().length;
            atFirstStage ??= atStart;
          }
          if (event.type === 'stage.completed') byStage[event.nodeId] = calls().slice(atStart);
        },
      });
      expect(run.result.status).toBe('success');
      const commits = Object.fromEntries(
        run.events.flatMap((event) =>
          event.type === 'stage.completed' && stages.includes(event.nodeId)
            ? [[event.nodeId, event.commit !== undefined]]
            : [],
        ),
      );
      return { byStage, commits, afterFirstStage: calls().slice(atFirstStage) };
    };

    const watched = await runWith(true);
    expect(watched.commits).toEqual({
      noop_1: false,
      noop_2: false,
      noop_3: false,
      edit: true,
      noop_4: false,
      noop_5: false,
    });
    for (const id of stages.filter((id) => id !== 'edit'))
      expect({ [id]: watched.byStage[id] }).toEqual({ [id]: [] });
    // The stage that changed a file got its commit (the same runner, so the log sees it)...
    expect(watched.byStage.edit!.some((line) => / add -A/.test(line))).toBe(true);
    expect(watched.byStage.edit!.some((line) => / commit /.test(line))).toBe(true);
    // ...and nothing else ran git from the first stage to the end of the run (checkpoints, events, close).
    expect(watched.afterFirstStage).toEqual(watched.byStage.edit);

    // The control: asking git after every stage (`watch: false`) is seen by the same count.
    rmSync(log);
    const asked = await runWith(false);
    expect(asked.commits).toEqual(watched.commits);
    for (const id of stages) expect(asked.byStage[id]!.length).toBeGreaterThan(0);
  });
});
