import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileRunStore } from '@attractor/engine';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingQuestion, RunDetails, RunSummary } from '../src/index.js';
import { openEvents, readFixture, startTestServer, type TestServer, waitFor } from './test-server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(
  runsDir?: string,
  options: Parameters<typeof startTestServer>[0] = {},
): Promise<TestServer> {
  const server = await startTestServer({ ...options, ...(runsDir === undefined ? {} : { runsDir }) });
  servers.push(server);
  return server;
}

async function question(server: TestServer, runId: string): Promise<PendingQuestion> {
  return waitFor(
    async () =>
      (await server.json<{ questions: PendingQuestion[] }>(`/pipelines/${runId}/questions`)).questions[0],
    'a pending question',
  );
}

describe('server stop and restart (issue #9 "Safety")', () => {
  it('cancels running pipelines on close, keeps their checkpoints, and a new server lists and resumes them', async () => {
    const first = await start();
    const dot = await readFixture('review-gate.dot');
    const waiting = await first.startRun(dot);
    const finished = await first.startRun(
      'digraph one { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }',
    );
    await question(first, waiting);
    await waitFor(
      async () => !(await first.json<RunDetails>(`/pipelines/${finished}`)).live,
      'the short run',
    );
    const stream = await openEvents(first, waiting);

    await first.close();
    await stream.ended;
    expect(stream.events().at(-1)?.type).toBe('pipeline.cancelled');
    await expect(fetch(`${first.url}/pipelines`)).rejects.toThrow();
    const checkpoint = await createFileRunStore({ logsRoot: join(first.runsDir, waiting) }).readCheckpoint();
    expect(checkpoint).toMatchObject({ current_node: 'draft', next_node: 'approve' });

    const second = await start(first.runsDir);
    const { pipelines } = await second.json<{ pipelines: RunSummary[] }>('/pipelines');
    const listed = Object.fromEntries(pipelines.map((run) => [run.id, run]));
    expect(listed[waiting]).toMatchObject({
      graphName: 'review',
      state: 'cancelled',
      failureReason: 'server stopped',
      live: false,
      resumable: true,
      currentNode: 'approve',
    });
    expect(listed[finished]).toMatchObject({ state: 'success', resumable: false });

    const resumed = await second.call(`/pipelines/${waiting}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    const pending = await question(second, waiting);
    expect(pending.question.stage).toBe('approve');
    await second.call(`/pipelines/${waiting}/questions/${encodeURIComponent(pending.id)}/answer`, {
      method: 'POST',
      json: { value: 'A' },
    });
    const done = await waitFor(async () => {
      const details = await second.json<RunDetails>(`/pipelines/${waiting}`);
      return details.state === 'success' ? details : undefined;
    }, 'the resumed run to succeed');
    expect(done.completedNodes).toEqual(['start', 'draft', 'approve', 'done']);
    expect((await readdir(first.runsDir)).sort()).toEqual([finished, waiting].sort());

    // The whole history is one event stream with increasing seq across the restart.
    const replay = await openEvents(second, waiting);
    await replay.ended;
    const events = replay.events();
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === 'pipeline.started')).toHaveLength(2);
    expect(events.at(-1)?.type).toBe('pipeline.completed');
  });

  it('closes idempotently', async () => {
    const server = await start();
    await Promise.all([server.close(), server.close()]);
    await expect(server.close()).resolves.toBeUndefined();
    await expect(fetch(`${server.url}/`)).rejects.toThrow();
  });

  it("keeps an interrupted run's tokens and cost when another server resumes it", async () => {
    // Every LLM stage reports 100 + 20 tokens and $0.50.
    const backendFactory = () => ({
      async run(request: { emit(event: never): void }) {
        request.emit({ type: 'agent.usage', inputTokens: 100, outputTokens: 20, costUsd: 0.5 } as never);
        return 'ok';
      },
    });
    const first = await start(undefined, { backendFactory });
    const id = await first.startRun(await readFixture('review-gate.dot'));
    await question(first, id);
    expect((await first.json<RunSummary>(`/pipelines/${id}`)).usage).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      costUsd: 0.5,
    });
    await first.close();
    // As if its process had been killed: no end event, so the run reads as interrupted.
    const eventsFile = join(first.runsDir, id, 'events.jsonl');
    const lines = (await readFile(eventsFile, 'utf8')).trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!).type).toBe('pipeline.cancelled');
    await writeFile(eventsFile, `${lines.slice(0, -1).join('\n')}\n`);

    const second = await start(first.runsDir, { backendFactory });
    expect(await second.json<RunSummary>(`/pipelines/${id}`)).toMatchObject({
      state: 'interrupted',
      usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.5 },
    });
    expect((await second.call(`/pipelines/${id}/resume`, { method: 'POST' })).status).toBe(200);
    await question(second, id);
    expect(await second.json<RunSummary>(`/pipelines/${id}`)).toMatchObject({
      state: 'waiting',
      resumes: 1,
      usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.5 },
    });
  });
});
