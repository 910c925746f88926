import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileRunStore } from '@attractor/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { followRuns, readFixture, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('DELETE /pipelines/{id}', () => {
  it('refuses a waiting run, deletes it once cancelled: its directory goes, GET answers 404, /events says removed', async () => {
    server = await startTestServer();
    const events = await followRuns(server);
    const id = await server.startRun(await readFixture('review-gate.dot'));
    await waitFor(
      async () => (await server!.json<{ questions: unknown[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the gate to ask',
    );
    const remove = () => server!.call(`/pipelines/${id}`, { method: 'DELETE' });

    const refused = await remove();
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: { code: 'RUN_ACTIVE', message: `Run "${id}" is waiting: cancel it first, then delete it.` },
    });
    expect(existsSync(join(server.runsDir, id, 'checkpoint.json'))).toBe(true);

    expect((await server.call(`/pipelines/${id}/cancel`, { method: 'POST' })).status).toBe(200);
    const deleted = await remove();
    expect(deleted.status).toBe(204);
    expect(existsSync(join(server.runsDir, id))).toBe(false);
    expect((await server.call(`/pipelines/${id}`)).status).toBe(404);
    expect((await server.json<{ pipelines: unknown[] }>('/pipelines')).pipelines).toEqual([]);
    await waitFor(() => events.removed.includes(id), 'event: removed');
    expect((await remove()).status).toBe(404);
    await events.close();
  });

  it('refuses a run another process holds (its run lock), and a name outside the runs directory', async () => {
    server = await startTestServer();
    const id = '2026-12-06T10-00-00Z-elsewhere';
    const dir = join(server.runsDir, id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({
        run_id: id,
        graph_name: 'elsewhere',
        goal: '',
        started_at: '2026-12-06T10:00:00.000Z',
      }),
    );
    // Another runner (`attractor run` into the same runs directory) holds the run's lock.
    const lock = await createFileRunStore({ logsRoot: dir }).acquireLock({ since: new Date().toISOString() });
    const refused = await server.call(`/pipelines/${id}`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('RUN_ACTIVE');
    expect(existsSync(dir)).toBe(true);
    expect((await server.call(`/pipelines/${encodeURIComponent('../x')}`, { method: 'DELETE' })).status).toBe(
      404,
    );
    await lock.release();
    expect((await server.call(`/pipelines/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect(existsSync(dir)).toBe(false);
  });
});
