import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createFileRunStore, type StageCompletedEvent } from '@attractor/engine';
import { runDot, tempDir } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { createWorkspaceProvider, readWorkspaceDiff } from '../src/index.js';
import { makeRepository, writeFiles } from './git-fixture.js';

const EDITS = `digraph edits {
  start [shape=Mdiamond]
  edit [shape=parallelogram, tool_command="printf 'line 1\\\\nline two\\\\nline 3\\\\nline 4\\\\n' > src/app.txt && echo new > added.txt"]
  shuffle [shape=parallelogram, tool_command="git mv -f README.md README.txt && rm added.txt && printf '\\\\000\\\\001binary' > data.bin"]
  exit [shape=Msquare]
  start -> edit -> shuffle -> exit
}`;

function checkpointOf(logsRoot: string) {
  return JSON.parse(readFileSync(join(logsRoot, 'checkpoint.json'), 'utf8'));
}

describe('readWorkspaceDiff (what a run or a stage changed, as data)', () => {
  it("gives each stage's files with lines added and deleted, renames and binary files, and the run's total", async () => {
    const repo = await makeRepository();
    const run = await runDot(EDITS, {
      registry: createDefaultRegistry(),
      workdir: repo,
      logsRoot: join(repo, '.attractor', 'runs', 'd1'),
      workspace: createWorkspaceProvider(),
    });
    expect(run.result.status).toBe('success');
    const record = checkpointOf(run.logsRoot).workspace;
    const commitOf = (id: string) =>
      run.events.find(
        (event): event is StageCompletedEvent => event.type === 'stage.completed' && event.nodeId === id,
      )?.commit;

    const edit = await readWorkspaceDiff({ record, commit: commitOf('edit')! });
    expect(edit).toMatchObject({
      to: commitOf('edit'),
      from: record.base,
      additions: 3,
      deletions: 1,
      truncated: false,
      files: [
        { path: 'added.txt', status: 'added', additions: 1, deletions: 0, binary: false },
        { path: 'src/app.txt', status: 'modified', additions: 2, deletions: 1, binary: false },
      ],
    });
    expect(edit.patch).toContain('-line 2\n+line two\n');
    expect(edit.patch).toContain('+++ b/added.txt\n@@ -0,0 +1 @@\n+new\n');

    const shuffle = await readWorkspaceDiff({ record, commit: commitOf('shuffle')! });
    expect(shuffle.from).toBe(commitOf('edit'));
    expect(shuffle.files).toEqual([
      {
        path: 'README.txt',
        previousPath: 'README.md',
        status: 'renamed',
        additions: 0,
        deletions: 0,
        binary: false,
      },
      { path: 'added.txt', status: 'deleted', additions: 0, deletions: 1, binary: false },
      { path: 'data.bin', status: 'added', binary: true },
    ]);
    expect(shuffle.patch).toContain('Binary files /dev/null and b/data.bin differ');

    const total = await readWorkspaceDiff({ record, maxPatchChars: 40 });
    expect(total.from).toBe(record.base);
    expect(total.to).toBe(record.commit);
    expect(total.files.map((file) => `${file.status} ${file.path}`)).toEqual([
      'renamed README.txt',
      'added data.bin',
      'modified src/app.txt',
    ]);
    expect(total.truncated).toBe(true);
    expect(total.patch).toHaveLength(40);
  });

  it('reads the commits of a run whose repository is not on this machine from the bundles in its store', async () => {
    const base = tempDir('workspace-diff-');
    writeFiles(join(base, 'source'), { 'a.txt': 'a\n' });
    const run = await runDot(
      `digraph copied {
        start [shape=Mdiamond]
        touch [shape=parallelogram, tool_command="echo b >> a.txt"]
        exit [shape=Msquare]
        start -> touch -> exit
      }`,
      {
        registry: createDefaultRegistry(),
        workdir: join(base, 'source'),
        logsRoot: join(base, 'runs', 'd2'),
        workspace: createWorkspaceProvider({ mode: 'copy', root: join(base, 'machine-a'), bundles: true }),
      },
    );
    expect(run.result.status).toBe('success');
    rmSync(join(base, 'machine-a'), { recursive: true, force: true });
    const record = checkpointOf(run.logsRoot).workspace;
    const diff = await createWorkspaceProvider({ root: join(base, 'machine-b') }).diff!({
      record,
      store: createFileRunStore({ logsRoot: run.logsRoot }),
    });
    expect(diff.files).toEqual([
      { path: 'a.txt', status: 'modified', additions: 1, deletions: 0, binary: false },
    ]);
    await expect(
      readWorkspaceDiff({ record, cacheRepository: join(base, 'machine-c', 'repository.git') }),
    ).rejects.toThrow(
      /The commit [0-9a-f]{12} of run d2 is not on this machine, and the run store holds no bundle with it/,
    );
  });
});
