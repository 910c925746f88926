import type { PipelineEvent } from '@attractor/engine';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingQuestion, RunDetails } from '../src/index.js';
import { openEvents, readFixture, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function firstQuestion(test: TestServer, runId: string): Promise<PendingQuestion> {
  return waitFor(
    async () =>
      (await test.json<{ questions: PendingQuestion[] }>(`/pipelines/${runId}/questions`)).questions[0],
    'a pending question',
  );
}

function seqs(events: readonly PipelineEvent[]): number[] {
  return events.map((event) => event.seq);
}

describe('GET /pipelines/{id}/events (SSE, spec §9.5)', () => {
  it('replays a finished run from events.jsonl with seq ids, then ends', async () => {
    server = await startTestServer();
    const id = await server.startRun(
      'digraph one { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }',
    );
    await waitFor(async () => !(await server!.json<RunDetails>(`/pipelines/${id}`)).live, 'the run to end');
    const stream = await openEvents(server, id);
    expect(stream.status).toBe(200);
    await stream.ended;
    const events = stream.events();
    expect(events[0]?.type).toBe('pipeline.started');
    expect(events.at(-1)?.type).toBe('pipeline.completed');
    expect(seqs(events)).toEqual(events.map((_, index) => index + 1));
    expect(
      stream.messages.filter((message) => message.event === undefined).map((message) => message.id),
    ).toEqual(events.map((event) => String(event.seq)));
    expect(stream.messages.at(-1)).toEqual({ event: 'end', data: '{"state":"success"}' });
  });

  it('streams live events, and a client reconnecting with Last-Event-ID misses nothing and sees nothing twice', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    const first = await openEvents(server, id);
    await first.until(
      (message) => message.data.includes('"type":"interview.started"'),
      'the interview.started event',
    );
    const seen = first.events();
    first.close();
    const lastId = seen.at(-1)!.seq;
    expect(seen.at(-1)?.type).toBe('interview.started');

    // While no client listens, the run moves on: these events must come with the replay.
    const question = await firstQuestion(server, id);
    await server.call(`/pipelines/${id}/questions/${encodeURIComponent(question.id)}/answer`, {
      method: 'POST',
      json: { value: 'R' },
    });
    await waitFor(
      async () =>
        (await server!.json<{ questions: PendingQuestion[] }>(`/pipelines/${id}/questions`)).questions.find(
          (entry) => entry.id !== question.id,
        ),
      'the second question',
    );

    const second = await openEvents(server, id, lastId);
    const replayed = await second.until(
      (message) => message.data.includes('"type":"interview.started"'),
      'the second interview.started',
    );
    expect(Number(replayed.id)).toBeGreaterThan(lastId);
    const again = await firstQuestion(server, id);
    await server.call(`/pipelines/${id}/questions/${encodeURIComponent(again.id)}/answer`, {
      method: 'POST',
      json: { value: 'A' },
    });
    await second.ended;
    const rest = second.events();
    expect(rest[0]?.seq).toBe(lastId + 1);
    const all = [...seen, ...rest];
    expect(seqs(all)).toEqual(all.map((_, index) => index + 1));
    expect(rest.map((event) => event.type)).toContain('interview.completed');
    expect(rest.at(-1)?.type).toBe('pipeline.completed');
    expect(second.messages.at(-1)).toEqual({ event: 'end', data: '{"state":"success"}' });
  });

  it('delivers the same events to two clients at once', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    const [one, two] = await Promise.all([openEvents(server, id), openEvents(server, id)]);
    const question = await firstQuestion(server, id);
    await server.call(`/pipelines/${id}/questions/${encodeURIComponent(question.id)}/answer`, {
      method: 'POST',
      json: { value: 'A' },
    });
    await Promise.all([one.ended, two.ended]);
    expect(seqs(one.events())).toEqual(seqs(two.events()));
    expect(one.events().at(-1)?.type).toBe('pipeline.completed');
  });

  it('ends the stream of a running pipeline when it is cancelled', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    const stream = await openEvents(server, id);
    await firstQuestion(server, id);
    await server.call(`/pipelines/${id}/cancel`, { method: 'POST' });
    await stream.ended;
    expect(stream.events().at(-1)?.type).toBe('pipeline.cancelled');
    expect(stream.messages.at(-1)).toEqual({ event: 'end', data: '{"state":"cancelled"}' });
  });
});
