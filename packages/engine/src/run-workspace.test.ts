import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents, readJson, registryWith, tempDir } from '../test/helpers.js';
import { ResumeError } from './errors/resume-error.js';
import type { Handler } from './handler.js';
import { resumePipeline, runPipeline } from './run-pipeline.js';
import type { Checkpoint, StageStatusFile } from './run-store.js';
import type {
  RunWorkspace,
  StageCommitRequest,
  WorkspaceOpenRequest,
  WorkspaceProvider,
  WorkspaceRecord,
} from './run-workspace.js';
import { createTestGraph } from './test/graph-builder.js';

/**
 * A provider that keeps its "commits" in memory: each stage that the handler marked as changing files (context
 * `changes.<node>`) gets the next commit id. The engine's side of the contract is what these tests check; the git
 * implementation is tested in @attractor/workspace.
 */
function recordingProvider(options: { leftovers?: boolean } = {}) {
  const opened: WorkspaceOpenRequest[] = [];
  const commits: StageCommitRequest[] = [];
  let dirty = false;
  const provider: WorkspaceProvider = {
    async open(request) {
      opened.push(request);
      let commit = request.record?.commit ?? 'c0';
      const workspace: RunWorkspace = {
        mode: 'test',
        workdir: join(request.workdir, 'tree'),
        ref: `attractor/${request.runId}`,
        record: (): WorkspaceRecord => ({ mode: 'test', run_id: request.runId, commit }),
        async commitStage(stage) {
          commits.push(stage);
          if (!dirty) return {};
          dirty = false;
          commit = `c${commits.length + 1}`;
          return { commit, skipped: [{ path: 'big.bin', reason: 'too big' }] };
        },
        branch: async () => ({ workspace }),
        merge: async () => ({ kind: 'merged', commit, merged: [] }),
        close: async () => undefined,
      };
      return options.leftovers === true
        ? { workspace, leftovers: { patch: 'diff --git a/x b/x\n', files: ['x'] } }
        : { workspace };
    },
  };
  const changing: Handler = {
    execute: async ({ node, runtime }) => {
      if (node.id.startsWith('edit')) dirty = true;
      return { status: 'success', notes: runtime.workdir };
    },
  };
  return { provider, opened, commits, changing };
}

const graph = createTestGraph({
  nodes: [
    { id: 'start', shape: 'Mdiamond' },
    { id: 'edit' },
    { id: 'look' },
    { id: 'exit', shape: 'Msquare' },
  ],
  edges: [
    { from: 'start', to: 'edit' },
    { from: 'edit', to: 'look' },
    { from: 'look', to: 'exit' },
  ],
});

describe('workspace hook (README "Workspaces")', () => {
  it('runs stages in the workspace and records each stage commit in status.json, stage.completed and the checkpoint', async () => {
    const { provider, opened, commits, changing } = recordingProvider();
    const workdir = tempDir();
    const logsRoot = join(workdir, 'run');
    const result = await runPipeline({
      graph,
      registry: registryWith(changing),
      workdir,
      logsRoot,
      workspace: provider,
    });
    expect(result.status).toBe('success');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ runId: 'run', workdir, resumed: false });
    expect(opened[0]?.record).toBeUndefined();
    // Start and exit change no file: the workspace is not asked about them.
    expect(
      commits.map((commit) => `${commit.nodeId}@${commit.visit}#${commit.attempt}:${commit.status}`),
    ).toEqual(['edit@1#1:success', 'look@1#1:success']);
    expect(readJson<StageStatusFile>(join(logsRoot, 'edit', 'status.json'))).toMatchObject({
      outcome: 'success',
      notes: join(workdir, 'tree'),
      commit: 'c2',
    });
    expect(readJson<StageStatusFile>(join(logsRoot, 'look', 'status.json')).commit).toBeUndefined();
    const events = readEvents(logsRoot);
    const completed = events.filter((event) => event.type === 'stage.completed');
    expect(completed.map((event) => (event.type === 'stage.completed' ? event.commit : undefined))).toEqual([
      undefined,
      'c2',
      undefined,
      undefined,
    ]);
    expect(events.find((event) => event.type === 'stage.log')).toMatchObject({
      nodeId: 'edit',
      level: 'warn',
      message: 'not committed to the workspace: big.bin (too big)',
    });
    expect(events[0]).toMatchObject({
      type: 'pipeline.started',
      workspace: { mode: 'test', workdir: join(workdir, 'tree'), branch: 'attractor/run', commit: 'c0' },
    });
    expect(readJson<Checkpoint>(join(logsRoot, 'checkpoint.json')).workspace).toEqual({
      mode: 'test',
      run_id: 'run',
      commit: 'c2',
    });
  });

  it('reopens the workspace on resume with the checkpoint record and keeps leftovers as a patch of the stage', async () => {
    const first = recordingProvider();
    const workdir = tempDir();
    const logsRoot = join(workdir, 'run');
    const controller = new AbortController();
    const stopping: Handler = {
      execute: async (input) => {
        if (input.node.id === 'look') {
          controller.abort(new Error('interrupted'));
          return new Promise(() => undefined);
        }
        return first.changing.execute(input);
      },
    };
    const interrupted = await runPipeline({
      graph,
      registry: registryWith(stopping),
      workdir,
      logsRoot,
      workspace: first.provider,
      abortSignal: controller.signal,
    });
    expect(interrupted.status).toBe('cancelled');

    await expect(
      resumePipeline({ graph, registry: registryWith(first.changing), workdir, logsRoot }),
    ).rejects.toSatisfy(
      (error: unknown) => ResumeError.isInstance(error) && error.reason === 'workspace_required',
    );

    const second = recordingProvider({ leftovers: true });
    const resumed = await resumePipeline({
      graph,
      registry: registryWith(second.changing),
      workdir,
      logsRoot,
      workspace: second.provider,
    });
    expect(resumed.status).toBe('success');
    expect(second.opened[0]).toMatchObject({
      resumed: true,
      interruptedStage: 'look',
      record: { mode: 'test', run_id: 'run', commit: 'c2' },
    });
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(logsRoot, 'look', 'interrupted-changes.patch'), 'utf8')).toBe(
      'diff --git a/x b/x\n',
    );
  });
});
