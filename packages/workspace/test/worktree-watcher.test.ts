import { join } from 'node:path';
import type { StageCompletedEvent } from '@attractor/engine';
import { runDot } from '@attractor/engine/test';
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
});
