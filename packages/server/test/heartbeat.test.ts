/**
 * Every event stream carries a heartbeat (an SSE comment `: heartbeat <ms>` every `heartbeatMs`), read here as raw
 * bytes over real HTTP on 127.0.0.1: it flows while a run waits at a gate (no events), between the events before and
 * after, and on the runs list's stream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type PendingQuestion, ServerOptionError } from '../src/index.js';
import { readFixture, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A raw event stream: the text received so far, and a way to wait until it satisfies a condition. */
async function openRaw(test: TestServer, path: string) {
  const controller = new AbortController();
  const response = await test.call(path, {
    headers: { Accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let waiters: (() => void)[] = [];
  void (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) break;
      text += chunk.value;
      for (const waiter of waiters.splice(0)) waiter();
    }
  })();
  return {
    response,
    get text() {
      return text;
    },
    async until(condition: (text: string) => boolean): Promise<string> {
      while (!condition(text)) await new Promise<void>((resolve) => waiters.push(resolve));
      return text;
    },
    close() {
      waiters = [];
      controller.abort();
    },
  };
}

/** How many times `needle` occurs in `text`. */
function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

const HEARTBEAT = ': heartbeat 50\n\n';

describe('event stream heartbeat', () => {
  it('a run waiting at a gate gets heartbeats between its events, over real HTTP', async () => {
    server = await startTestServer({ heartbeatMs: 50 });
    const id = await server.startRun(await readFixture('review-gate.dot'));
    const stream = await openRaw(server, `/pipelines/${id}/events`);
    expect(stream.response.headers.get('content-type')).toContain('text/event-stream');
    // The first bytes are a heartbeat: the client learns the interval before any event.
    await stream.until((text) => text.length >= HEARTBEAT.length);
    expect(stream.text.startsWith(HEARTBEAT)).toBe(true);

    // At the gate no event comes, but heartbeats do.
    const atGate = await stream.until((text) => text.includes('"type":"interview.started"'));
    await stream.until((text) => count(text.slice(atGate.length), HEARTBEAT) >= 3);
    const question = await waitFor(
      async () =>
        (await server!.json<{ questions: PendingQuestion[] }>(`/pipelines/${id}/questions`)).questions[0],
      'a pending question',
    );
    await server.call(`/pipelines/${id}/questions/${encodeURIComponent(question.id)}/answer`, {
      method: 'POST',
      json: { value: 'A' },
    });
    const text = await stream.until((received) => received.includes('event: end\n'));
    stream.close();

    // Heartbeats sit between whole messages (never inside one), after the gate's event and before the answer's.
    const messages = text.split('\n\n').filter((message) => message !== '');
    const gate = messages.findIndex((message) => message.includes('"type":"interview.started"'));
    const answered = messages.findIndex((message) => message.includes('"type":"interview.completed"'));
    expect(gate).toBeGreaterThan(0);
    expect(answered).toBeGreaterThan(gate);
    const between = messages.slice(gate + 1, answered);
    expect(between.filter((message) => message === ': heartbeat 50').length).toBeGreaterThanOrEqual(3);
    for (const message of messages)
      expect(message === ': heartbeat 50' || /^(event: \w+\n)?data: /.test(message)).toBe(true);
  });

  it('the runs list stream gets heartbeats while no run changes; the default interval is 15 s', async () => {
    server = await startTestServer({ heartbeatMs: 50 });
    const stream = await openRaw(server, '/events');
    const text = await stream.until((received) => count(received, HEARTBEAT) >= 3);
    stream.close();
    expect(text).toContain('event: ready\n');

    await server.close();
    server = await startTestServer();
    const defaults = await openRaw(server, '/events');
    expect(await defaults.until((received) => received.includes('event: ready\n'))).toContain(
      ': heartbeat 15000\n\n',
    );
    defaults.close();
  });
});

describe('startServer heartbeatMs', () => {
  it.each([0, -50, 0.5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31])(
    'refuses heartbeatMs %s at start, naming the option and the allowed range',
    async (heartbeatMs) => {
      const started = startTestServer({ heartbeatMs });
      await expect(started).rejects.toSatisfy(ServerOptionError.isInstance);
      await expect(started).rejects.toMatchObject({
        code: 'SERVER_OPTION_INVALID',
        option: 'heartbeatMs',
        value: heartbeatMs,
        message: `The server option heartbeatMs is ${String(heartbeatMs)}, which is not allowed: use a whole number of milliseconds from 1 to 2147483647 (default: 15000).`,
      });
    },
  );
});
