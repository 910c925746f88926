import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunDetails } from '../src/index.js';
import { startTestServer, type TestServer, waitFor } from './test-server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const server = await startTestServer(options);
  servers.push(server);
  return server;
}

type ErrorBody = { error: { code: string; message: string; limit?: string } };

const SHORT = 'digraph one { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }';

function nested(depth: number): string {
  return `digraph deep { start [shape=Mdiamond]; done [shape=Msquare]; start -> done ${'subgraph s { '.repeat(depth)}${'} '.repeat(depth)}}`;
}

function attributes(count: number): string {
  const list = Array.from({ length: count }, (_, index) => `k${index}=1`).join(' ');
  return `digraph wide { start [shape=Mdiamond]; done [shape=Msquare]; start -> done [${list}] }`;
}

async function post(server: TestServer, path: string, body: string, contentType = 'application/json') {
  const response = await server.call(path, {
    method: 'POST',
    body,
    headers: { 'Content-Type': contentType },
  });
  return { status: response.status, body: (await response.json()) as ErrorBody };
}

describe('pipeline limits (issue 20 §3)', () => {
  it('refuses a pipeline over maxPipelineBytes with 413 naming the limit', async () => {
    const server = await start({ limits: { maxPipelineBytes: 2_000 } });
    const { status, body } = await post(server, '/pipelines', JSON.stringify({ dot: attributes(300) }));
    expect(status).toBe(413);
    expect(body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'maxPipelineBytes' });
    expect(body.error.message).toContain("over this server's limit of 2000 bytes (maxPipelineBytes)");
  });

  it('refuses deep nesting, many attributes and many nodes with 422 naming each limit', async () => {
    const server = await start({ limits: { maxAttributes: 100, maxNodes: 10 } });
    const cases: Array<[string, string]> = [
      [nested(5_000), 'maxNestingDepth'],
      [attributes(101), 'maxAttributes'],
      [
        `digraph many { start [shape=Mdiamond]; done [shape=Msquare]; start -> done ${Array.from({ length: 20 }, (_, index) => `n${index}`).join('; ')} }`,
        'maxNodes',
      ],
    ];
    for (const [dot, limit] of cases) {
      const { status, body } = await post(server, '/pipelines', JSON.stringify({ dot }));
      expect(status, limit).toBe(422);
      expect(body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', limit });
      expect(body.error.message).toContain(`(${limit})`);
    }
    expect((await server.json<{ pipelines: unknown[] }>('/pipelines')).pipelines).toEqual([]);
  });

  it('validates off the event loop: other requests are answered while a large pipeline is checked, and a slow one times out with 422', async () => {
    const server = await start({ limits: { validateTimeoutMs: 60_000 } });
    const order: string[] = [];
    const big = post(server, '/pipelines', JSON.stringify({ dot: attributes(6_000) })).then((result) => {
      order.push('big');
      return result;
    });
    // Give the request time to reach the worker, then ask for something cheap.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const list = await server.call('/pipelines');
    order.push('list');
    expect(list.status).toBe(200);
    expect((await big).status).toBe(201);
    expect(order).toEqual(['list', 'big']);

    const hurried = await start({ limits: { validateTimeoutMs: 1 } });
    const { status, body } = await post(hurried, '/pipelines', JSON.stringify({ dot: attributes(5_000) }));
    expect(status).toBe(422);
    expect(body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'validateTimeoutMs' });
  });

  it('refuses a 100,000-deep JSON context with 422, not a 500', async () => {
    const server = await start();
    const context = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const { status, body } = await post(
      server,
      '/pipelines',
      `{"dot": ${JSON.stringify(SHORT)}, "context": {"x": ${context}}}`,
    );
    expect(status).toBe(422);
    expect(body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'maxJsonDepth' });
  });

  it('caches the graph of a past run: GET never parses it again', async () => {
    const server = await start();
    const id = await server.startRun(SHORT);
    await waitFor(async () => !(await server.json<RunDetails>(`/pipelines/${id}`)).live, 'the run');
    const restarted = await start({ runsDir: server.runsDir });
    expect((await restarted.call(`/pipelines/${id}/graph`)).status).toBe(200);
    // The saved source is gone; the second GET answers from the cache.
    await rm(join(server.runsDir, id, 'pipeline.dot'));
    expect((await restarted.call(`/pipelines/${id}/graph`)).status).toBe(200);
  });
});

describe('server hardening (issue 20 §7)', () => {
  it('answers malformed JSON with 400 on every endpoint that reads a body, never 500', async () => {
    const server = await start();
    const id = await server.startRun(SHORT);
    const bodies = [
      '{',
      '{"dot": ',
      'nul',
      '[1,',
      '"\\u12"',
      '\u0000',
      '{"dot": "x"}}',
      '\uFEFF{}',
      'null',
      '[]',
      '1e99999',
    ];
    for (const path of ['/pipelines', `/pipelines/${id}/resume`, `/pipelines/${id}/questions/q1/answer`]) {
      for (const body of bodies) {
        const response = await server.call(path, {
          method: 'POST',
          body,
          headers: { 'Content-Type': 'application/json' },
        });
        expect(response.status, `${path} ${JSON.stringify(body)}`).toBeLessThan(500);
        expect(response.status, `${path} ${JSON.stringify(body)}`).not.toBe(201);
      }
    }
  });

  it('refuses a Host header that is not a loopback name while bound to loopback (DNS rebinding)', async () => {
    const server = await start();
    const url = new URL(server.url);
    const statusFor = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const outgoing = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/pipelines',
            headers: { Host: host, Authorization: `Bearer ${server.token}` },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        outgoing.once('error', reject);
        outgoing.end();
      });
    expect(await statusFor('evil.example:80')).toBe(403);
    expect(await statusFor('127.0.0.1.evil.example')).toBe(403);
    expect(await statusFor(`localhost:${url.port}`)).toBe(200);
    expect(await statusFor(`127.0.0.1:${url.port}`)).toBe(200);
    expect(await statusFor(`[::1]:${url.port}`)).toBe(200);
  });

  it('never serves through a symbolic link leading out of the runs directory', async () => {
    const server = await start();
    const id = await server.startRun(SHORT);
    await waitFor(async () => !(await server.json<RunDetails>(`/pipelines/${id}`)).live, 'the run');
    const outside = await mkdtemp(join(tmpdir(), 'attractor-outside-'));
    await writeFile(
      join(outside, 'checkpoint.json'),
      JSON.stringify({ version: 1, context: { stolen: 'yes' } }),
    );
    await writeFile(join(outside, 'manifest.json'), '{}');
    // A checkpoint.json that is a link to a file outside.
    await rm(join(server.runsDir, id, 'checkpoint.json'));
    await symlink(join(outside, 'checkpoint.json'), join(server.runsDir, id, 'checkpoint.json'));
    for (const path of [`/pipelines/${id}/checkpoint`, `/pipelines/${id}/context`]) {
      const response = await server.call(path);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('stolen');
    }
    // A run directory that is a link to a directory outside.
    await symlink(outside, join(server.runsDir, 'linked-run'));
    const linked = await server.call('/pipelines/linked-run/checkpoint');
    expect(linked.status).toBe(404);
    expect(await linked.text()).not.toContain('stolen');
  });
});
