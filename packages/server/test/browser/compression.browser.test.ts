/**
 * Compressed responses (issue "Web UI, second round"): over real HTTP, a client that accepts gzip gets the UI bundle,
 * a 300-node run's SVG and its JSON compressed, one that does not gets them plain; the event streams are gzipped with
 * every write flushed, so a live run page in Chromium (which accepts gzip and brotli) still gets every event as it
 * happens.
 */
import { request } from 'node:http';
import { createGunzip, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type TestServer, waitFor } from '../test-server.js';
import { closeAfterEach } from './browser-session.js';
import { chainPipeline } from './chain-pipeline.js';

const resources = closeAfterEach();

/** A raw response: node:http does not decode bodies, so the bytes are the ones on the wire. */
interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** `GET path` with the token and `headers`, over node:http (no automatic decompression). */
function rawGet(test: TestServer, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${test.url}${path}`,
      { headers: { Authorization: `Bearer ${test.token}`, ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Fetches `path` plain and gzip-accepted; checks the second is gzip, smaller, and decodes to the first. */
async function expectGzipped(test: TestServer, path: string): Promise<{ plain: number; gzipped: number }> {
  const plain = await rawGet(test, path);
  expect(plain.status).toBe(200);
  expect(plain.headers['content-encoding']).toBeUndefined();
  const gzipped = await rawGet(test, path, { 'Accept-Encoding': 'gzip' });
  expect(gzipped.status).toBe(200);
  expect(gzipped.headers['content-encoding']).toBe('gzip');
  expect(gzipped.headers.vary).toContain('Accept-Encoding');
  expect(gzipped.body.length).toBeLessThan(plain.body.length);
  expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
  return { plain: plain.body.length, gzipped: gzipped.body.length };
}

describe('compressed responses (issue "Web UI, second round")', () => {
  it('gzips the UI bundle, a 300-node run SVG and its JSON for a client that accepts gzip, and only for it', async () => {
    const server = await resources.startServer();
    const page = await rawGet(server, '/');
    const bundle = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(page.body.toString('utf8'))?.[1];
    expect(bundle).toBeDefined();
    const sizes = { bundle: await expectGzipped(server, bundle!) };

    const id = await server.startRun(chainPipeline(300));
    // The run waits at its gate: the SVG then has all 300 nodes.
    await waitFor(
      async () => (await server.json<{ questions: unknown[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the gate',
    );
    const svg = await expectGzipped(server, `/pipelines/${id}/graph`);
    expect(svg.plain).toBeGreaterThan(100_000);
    const json = await expectGzipped(server, `/pipelines/${id}`);
    console.info(`bytes plain → gzip: ${JSON.stringify({ ...sizes, svg, json })}`);
    await server.call(`/pipelines/${id}/cancel`, { method: 'POST' });
  });

  it('gzips the event streams with every write flushed, so a live run page still gets every event', async () => {
    const server = await resources.startServer();
    const id = await server.startRun(chainPipeline(20));
    await waitFor(
      async () => (await server.json<{ questions: unknown[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the gate',
    );
    // The recorded events without following the run: gzipped for a client that accepts it, plain for another.
    const path = `/pipelines/${id}/events?follow=false`;
    const events = await rawGet(server, path, {
      'Accept-Encoding': 'gzip, deflate, br',
      Accept: 'text/event-stream',
    });
    expect(events.headers['content-type']).toContain('text/event-stream');
    expect(events.headers['content-encoding']).toBe('gzip');
    const text = gunzipSync(events.body).toString('utf8');
    expect(text).toContain('"type":"interview.started"');
    const plain = await rawGet(server, path, { Accept: 'text/event-stream' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString('utf8')).toContain('"type":"interview.started"');
    expect(events.body.length).toBeLessThan(plain.body.length);

    // Following the waiting run, the stream stays open: what it wrote so far decodes now (each write is flushed).
    const followed = await new Promise<{
      text: () => string;
      close: () => void;
      waitFor: (needle: string) => Promise<void>;
    }>((resolve, reject) => {
      const outgoing = request(
        `${server.url}/pipelines/${id}/events`,
        {
          headers: {
            Authorization: `Bearer ${server.token}`,
            'Accept-Encoding': 'gzip',
            Accept: 'text/event-stream',
          },
        },
        (response) => {
          expect(response.headers['content-encoding']).toBe('gzip');
          let received = '';
          let wake: (() => void) | undefined;
          response.pipe(createGunzip()).on('data', (chunk: Buffer) => {
            received += chunk.toString('utf8');
            wake?.();
          });
          resolve({
            text: () => received,
            close: () => outgoing.destroy(),
            async waitFor(needle) {
              while (!received.includes(needle)) await new Promise<void>((done) => (wake = done));
            },
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    await followed.waitFor('"type":"interview.started"');
    expect(followed.text()).not.toContain('event: end');
    followed.close();

    const browser = await resources.launchBrowser();
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.locator('#gate-panel button[data-answer="G"]').waitFor();
    await page.keyboard.press('g');
    // Every later stage's colour comes from the live stream.
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.locator('#graph g#node-s17.status-success').waitFor();
    await page.locator('#graph g#node-done.status-success').waitFor();
    expect(browser.pageErrors).toEqual([]);
  });
});
