import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../src/index.js';
import { followRuns, readFixture, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ids = async (test: TestServer, query = ''): Promise<string[]> =>
  (await test.json<{ pipelines: RunSummary[] }>(`/pipelines${query}`)).pipelines.map((run) => run.id);

describe('POST /pipelines/{id}/archive and /unarchive', () => {
  it('refuses a live run, archives an ended one (hidden from the list, kept), survives a restart, unarchives; a resume unarchives', async () => {
    server = await startTestServer();
    const dot = await readFixture('review-gate.dot');
    const kept = await server.startRun(dot);
    const id = await server.startRun(dot);
    for (const run of [kept, id]) {
      await waitFor(
        async () =>
          (await server!.json<{ questions: unknown[] }>(`/pipelines/${run}/questions`)).questions[0],
        `the gate of ${run} to ask`,
      );
    }
    const archive = (test: TestServer, run: string) =>
      test.call(`/pipelines/${run}/archive`, { method: 'POST' });

    const refused = await archive(server, id);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: {
        code: 'RUN_ACTIVE',
        message: `Run "${id}" is waiting: cancel it or let it end first, then archive it.`,
      },
    });
    expect(existsSync(join(server.runsDir, id, 'server-archived.json'))).toBe(false);

    for (const run of [kept, id])
      expect((await server.call(`/pipelines/${run}/cancel`, { method: 'POST' })).status).toBe(200);
    const events = await followRuns(server);
    const archived = await archive(server, id);
    expect(archived.status).toBe(200);
    expect(await archived.json()).toMatchObject({ id, state: 'cancelled', archived: true });
    await waitFor(
      () => events.runs.some((run) => run.id === id && run.archived === true),
      'event: run archived',
    );
    await events.close();

    expect(await ids(server)).toEqual([kept]);
    expect(await ids(server, '?archived=exclude')).toEqual([kept]);
    expect((await ids(server, '?archived=include')).sort()).toEqual([id, kept].sort());
    expect(await ids(server, '?archived=only')).toEqual([id]);
    // An archived run keeps everything: it opens, and the unarchived one has no mark.
    expect(await server.json<RunSummary>(`/pipelines/${id}`)).toMatchObject({ id, archived: true });
    expect(await server.json<RunSummary>(`/pipelines/${kept}`)).not.toHaveProperty('archived');

    const runsDir = server.runsDir;
    await server.close();
    server = await startTestServer({ runsDir });
    expect(await ids(server)).toEqual([kept]);
    expect(await ids(server, '?archived=only')).toEqual([id]);

    const unarchived = await server.call(`/pipelines/${id}/unarchive`, { method: 'POST' });
    expect(unarchived.status).toBe(200);
    expect(await unarchived.json()).not.toHaveProperty('archived');
    expect((await ids(server)).sort()).toEqual([id, kept].sort());
    expect(await ids(server, '?archived=only')).toEqual([]);

    // Resuming an archived run unarchives it: a run that goes on shows in the list again.
    expect((await archive(server, kept)).status).toBe(200);
    const resumed = await server.call(`/pipelines/${kept}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).not.toHaveProperty('archived');
    expect(existsSync(join(server.runsDir, kept, 'server-archived.json'))).toBe(false);
    expect(await ids(server, '?archived=only')).toEqual([]);
  });

  it('answers 404 for an unknown run and 400 naming the allowed values for a bad ?archived=', async () => {
    server = await startTestServer();
    for (const action of ['archive', 'unarchive']) {
      const response = await server.call(`/pipelines/2026-01-01T00-00-00Z-nothing/${action}`, {
        method: 'POST',
      });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('RUN_NOT_FOUND');
    }
    const bad = await server.call('/pipelines?archived=yes');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: {
        code: 'INVALID_REQUEST',
        message: 'Invalid ?archived="yes": use one of exclude, include, only (default: exclude).',
      },
    });
  });
});
