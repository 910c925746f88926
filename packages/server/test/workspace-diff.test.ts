/**
 * Issue 28 item 7 over HTTP: `GET /pipelines/{id}/diff` (what a run changed in its git workspace) and
 * `GET /pipelines/{id}/stage-diff?dir=` (what one stage's commit changed), with real git repositories and runs; a
 * fork through the API starts from the stage's files.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkspaceProvider } from '@attractor/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetails } from '../src/index.js';
import { git } from './git-repository.js';
import { startTestServer, type TestServer, waitFor } from './test-server.js';

const SECRET = 'hunter2-workspace-secret';

const PIPELINE = `digraph edits {
  start [shape=Mdiamond]
  edit [shape=parallelogram, tool_command="printf 'one\\\\ntwo\\\\nthree\\\\n' > notes.txt && echo added > added.txt"]
  noop [shape=parallelogram, tool_command="true"]
  leak [shape=parallelogram, tool_command="echo token=${SECRET} > config.txt"]
  exit [shape=Msquare]
  start -> edit -> noop -> leak -> exit
}`;

interface DiffBody {
  readonly mode?: string;
  readonly branch?: string | null;
  readonly dir?: string;
  readonly commit?: string | null;
  readonly from: string;
  readonly to: string;
  readonly files: readonly Record<string, unknown>[];
  readonly additions: number;
  readonly deletions: number;
  readonly patch: string;
  readonly truncated: boolean;
}

describe('the diff of a run and of its stages (issue 28)', () => {
  let server: TestServer;
  let repo: string;
  beforeAll(async () => {
    repo = await mkdtemp(join(tmpdir(), 'attractor-server-repo-'));
    git(repo, 'init', '-q', '-b', 'main');
    await writeFile(join(repo, 'notes.txt'), 'one\n2\nthree\n');
    await writeFile(join(repo, '.gitignore'), '.attractor/\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    server = await startTestServer({
      allowTools: true,
      workdir: repo,
      workspace: createWorkspaceProvider({ defaultMode: 'git' }),
      secretValues: [SECRET],
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const finished = (runId: string) =>
    waitFor(
      async () => {
        const details = await server.json<RunDetails>(`/pipelines/${runId}`);
        return details.live ? undefined : details;
      },
      `run ${runId} to end`,
      60_000,
    );

  it("serves the run's total diff and each stage's, masked, and a stage that changed nothing has no commit", async () => {
    const runId = await server.startRun(PIPELINE);
    expect((await finished(runId)).state).toBe('success');

    const run = await server.json<DiffBody>(`/pipelines/${runId}/diff`);
    expect(run).toMatchObject({
      mode: 'git',
      branch: `attractor/${runId}`,
      additions: 3,
      deletions: 1,
      truncated: false,
      files: [
        { path: 'added.txt', status: 'added', additions: 1, deletions: 0, binary: false },
        { path: 'config.txt', status: 'added', additions: 1, deletions: 0, binary: false },
        { path: 'notes.txt', status: 'modified', additions: 1, deletions: 1, binary: false },
      ],
    });
    expect(run.from).toBe(git(repo, 'rev-parse', 'main'));
    expect(run.to).toBe(git(repo, 'rev-parse', `attractor/${runId}`));
    expect(run.patch).toContain('-2\n+two\n');
    // What a stage wrote passes the same masking as everything the server sends.
    expect(run.patch).not.toContain(SECRET);
    expect(run.patch).toContain('+token=[REDACTED]');

    const edit = await server.json<DiffBody>(`/pipelines/${runId}/stage-diff?dir=edit`);
    expect(edit).toMatchObject({
      dir: 'edit',
      commit: git(repo, 'rev-parse', `attractor/${runId}~1`),
      from: run.from,
      files: [
        { path: 'added.txt', status: 'added' },
        { path: 'notes.txt', status: 'modified' },
      ],
    });
    expect(await server.json(`/pipelines/${runId}/stage-diff?dir=noop`)).toEqual({
      dir: 'noop',
      commit: null,
    });

    const missing = await server.call(`/pipelines/${runId}/stage-diff`);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('INVALID_REQUEST');
    const unknown = await server.call('/pipelines/no-such-run/diff');
    expect(unknown.status).toBe(404);
  });

  it('answers 404 NO_WORKSPACE for a run that worked in place', async () => {
    const runId = await server.startRun(
      'digraph plain { graph [workspace="in-place"]; start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }',
    );
    await finished(runId);
    const response = await server.call(`/pipelines/${runId}/diff`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: { code: 'NO_WORKSPACE', message: expect.stringContaining('works in place') },
    });
  });

  it("forks from a stage with that stage's files: the fork's diff starts at the stage's commit", async () => {
    const source = await server.startRun(PIPELINE);
    await finished(source);
    const editCommit = (await server.json<DiffBody>(`/pipelines/${source}/stage-diff?dir=edit`)).commit!;
    const fork = await server.json<{ id: string }>(`/pipelines/${source}/fork`, {
      method: 'POST',
      json: { from: 'edit' },
    });
    expect((await finished(fork.id)).state).toBe('success');
    const forked = await server.json<DiffBody>(`/pipelines/${fork.id}/diff`);
    expect(forked.from).toBe(editCommit);
    expect(forked.branch).toBe(`attractor/${fork.id}`);
    // Only what ran after the fork point: the edit's files came with the fork.
    expect(forked.files.map((file) => file.path)).toEqual(['config.txt']);
    expect(git(repo, 'show', `attractor/${fork.id}:added.txt`)).toBe('added');
  });
});
