/**
 * Test helpers: a real server on an ephemeral loopback port with a fresh temporary runs directory, an authorised
 * `fetch`, SSE readers (a run's events, the runs list's changes), and polling.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PipelineEvent } from '@attractor/engine';
import { createParser } from 'eventsource-parser';
import { type AttractorServer, type RunSummary, type StartServerOptions, startServer } from '../src/index.js';

/** A started server plus helpers bound to it. */
export interface TestServer extends AttractorServer {
  readonly runsDir: string;
  /** `fetch` with the bearer token (and a JSON content type when `json` is given). */
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** `call`, then the JSON body. */
  json<TBody = Record<string, unknown>>(
    path: string,
    init?: RequestInit & { json?: unknown },
  ): Promise<TBody>;
  /** Starts a pipeline from DOT text; returns its id. */
  startRun(dot: string, extra?: Record<string, unknown>): Promise<string>;
}

/** Reads a file of `test/fixtures/`. */
export function readFixture(name: string): Promise<string> {
  return readFile(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

/** Starts a server on 127.0.0.1:0 with a fresh runs directory (unless given). */
export async function startTestServer(options: Partial<StartServerOptions> = {}): Promise<TestServer> {
  const runsDir = options.runsDir ?? (await mkdtemp(join(tmpdir(), 'attractor-server-')));
  const server = await startServer({ ...options, runsDir });
  const call = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (!headers.has('Authorization')) headers.set('Authorization', `Bearer ${server.token}`);
    if (json !== undefined) headers.set('Content-Type', 'application/json');
    return fetch(`${server.url}${path}`, {
      ...rest,
      headers,
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  };
  const json = async <TBody>(path: string, init?: RequestInit & { json?: unknown }) =>
    (await (await call(path, init)).json()) as TBody;
  return {
    ...server,
    runsDir,
    call,
    json,
    async startRun(dot, extra = {}) {
      const response = await call('/pipelines', { method: 'POST', json: { dot, ...extra } });
      const body = (await response.json()) as { id?: string; error?: { message: string } };
      if (response.status !== 201 || body.id === undefined)
        throw new Error(`start failed: ${response.status} ${JSON.stringify(body)}`);
      return body.id;
    },
  };
}

/** Polls `probe` every 20 ms until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<TValue>(
  probe: () => Promise<TValue | undefined | false> | TValue | undefined | false,
  description: string,
  // Generous: the wait ends as soon as the condition holds; a loaded machine can take long.
  timeoutMs = 60_000,
): Promise<TValue> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One SSE message as received. */
export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/** An open SSE connection. */
export interface SseConnection {
  readonly status: number;
  readonly messages: SseMessage[];
  /** The pipeline events received so far (messages without an `event` name). */
  events(): PipelineEvent[];
  /** Resolves when the stream ends (the server closed it). */
  readonly ended: Promise<void>;
  /** Resolves once a message satisfies `predicate`. */
  until(predicate: (message: SseMessage) => boolean, description: string): Promise<SseMessage>;
  close(): void;
}

/** Opens `GET /pipelines/{id}/events` (of its child run `child`, e.g. `checks/child`) with the token and an optional `Last-Event-ID`. */
export async function openEvents(
  server: TestServer,
  runId: string,
  lastEventId?: number,
  child?: string,
): Promise<SseConnection> {
  const controller = new AbortController();
  const headers: Record<string, string> = { Accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['Last-Event-ID'] = String(lastEventId);
  const query = child === undefined ? '' : `?child=${encodeURIComponent(child)}`;
  const response = await server.call(`/pipelines/${encodeURIComponent(runId)}/events${query}`, {
    headers,
    signal: controller.signal,
  });
  const messages: SseMessage[] = [];
  const watchers = new Set<() => void>();
  let done = false;
  const parser = createParser({
    onEvent(event) {
      messages.push({
        ...(event.id === undefined ? {} : { id: event.id }),
        ...(event.event === undefined ? {} : { event: event.event }),
        data: event.data,
      });
      for (const watcher of watchers) watcher();
    },
  });
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>)
        parser.feed(decoder.decode(chunk, { stream: true }));
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      done = true;
      for (const watcher of watchers) watcher();
    }
  })();
  return {
    status: response.status,
    messages,
    events: () =>
      messages.filter((message) => message.event === undefined).map((message) => JSON.parse(message.data)),
    ended,
    until(predicate, description) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(predicate);
          if (found !== undefined) {
            watchers.delete(check);
            resolve(found);
          } else if (done || controller.signal.aborted) {
            watchers.delete(check);
            reject(new Error(`SSE stream ended before ${description}`));
          }
        };
        watchers.add(check);
        check();
      });
    },
    close: () => controller.abort(),
  };
}

/** The runs list's changes as `GET /events` streams them, collected as they arrive. */
export interface RunChanges {
  /** The summaries of the `event: run` messages, in order. */
  readonly runs: RunSummary[];
  /** The ids of the `event: removed` messages, in order. */
  readonly removed: string[];
  /** Ends the stream and waits until reading stopped. */
  close(): Promise<void>;
}

/** Follows `GET /events` (with the token) and collects its `event: run` summaries and `event: removed` ids. */
export async function followRuns(server: TestServer): Promise<RunChanges> {
  const controller = new AbortController();
  const response = await server.call('/events', { signal: controller.signal });
  const runs: RunSummary[] = [];
  const removed: string[] = [];
  const parser = createParser({
    onEvent(event) {
      if (event.event === 'run') runs.push(JSON.parse(event.data) as RunSummary);
      else if (event.event === 'removed') removed.push((JSON.parse(event.data) as { id: string }).id);
    },
  });
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
        parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // Aborted by close().
    }
  })();
  return {
    runs,
    removed,
    async close() {
      controller.abort();
      await reading;
    },
  };
}
