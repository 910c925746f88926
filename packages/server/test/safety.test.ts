import { mkdir, mkdtemp, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineHandler } from '@attractor/engine';
import { createDefaultRegistry } from '@attractor/handlers';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingQuestion, RunDetails } from '../src/index.js';
import { readFixture, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type ErrorBody = { error: { code: string; message: string; nodes?: string[] } };

const TOOL_DOT = `digraph build {
  start [shape=Mdiamond]
  compile [shape=parallelogram, tool_command="echo compiled > built.txt && echo ok"]
  done [shape=Msquare]
  start -> compile -> done
}`;

describe('bearer token (issue #9 "Safety")', () => {
  it('refuses every API endpoint without the right token with 401 and a JSON error', async () => {
    server = await startTestServer({ token: 'secret-token' });
    expect(server.token).toBe('secret-token');
    const id = await server.startRun(await readFixture('review-gate.dot'));
    const pending = await waitFor(
      async () =>
        (await server!.json<{ questions: PendingQuestion[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the question',
    );
    const endpoints: [string, string][] = [
      ['GET', '/pipelines'],
      ['POST', '/pipelines'],
      ['GET', '/pipeline-files'],
      ['GET', `/pipelines/${id}`],
      ['GET', `/pipelines/${id}/events`],
      ['POST', `/pipelines/${id}/cancel`],
      ['DELETE', `/pipelines/${id}`],
      ['POST', `/pipelines/${id}/resume`],
      ['GET', `/pipelines/${id}/graph`],
      ['GET', `/pipelines/${id}/questions`],
      ['POST', `/pipelines/${id}/questions/${encodeURIComponent(pending.id)}/answer`],
      ['GET', `/pipelines/${id}/checkpoint`],
      ['GET', `/pipelines/${id}/context`],
      ['GET', `/pipelines/${id}/stages/draft/prompt.md`],
      ['GET', `/pipelines/${id}/stage?dir=draft`],
      ['GET', `/pipelines/${id}/stage-file?dir=draft&name=prompt.md`],
      ['GET', '/server'],
      ['GET', '/events'],
      ['GET', '/no-such-route'],
    ];
    const bodies: Record<string, unknown> = {
      '/pipelines': { dot: 'digraph x { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }' },
    };
    for (const authorization of [undefined, 'Bearer wrong-token', 'secret-token', 'Basic c2VjcmV0LXRva2Vu']) {
      for (const [method, path] of endpoints) {
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (authorization !== undefined) headers.Authorization = authorization;
        const body = method === 'POST' ? JSON.stringify(bodies[path] ?? { value: 'A' }) : undefined;
        const response = await fetch(`${server.url}${path}`, { method, headers, ...(body ? { body } : {}) });
        expect(response.status, `${method} ${path} with ${authorization}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="attractor"');
        const error = (await response.json()) as ErrorBody;
        expect(error.error.code).toBe('UNAUTHORIZED');
        expect(error.error.message).toMatch(/bearer token/i);
      }
    }
    // Nothing changed: one run, still waiting on the same question.
    expect(await readdir(server.runsDir)).toEqual([id]);
    const details = await server.json<RunDetails>(`/pipelines/${id}`);
    expect(details).toMatchObject({ state: 'waiting', pendingQuestions: 1, live: true });
  });

  it('serves the web UI without a token, and nothing else', async () => {
    server = await startTestServer();
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<title>Attractor</title>');
    // The built bundles that index.html names, and the page routes of the app (served the same index.html).
    const assets = [...html.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.map((asset) => asset.replace(/-[A-Za-z0-9_-]+\./, '-<hash>.')).sort()).toEqual([
      '/ui/assets/index-<hash>.css',
      '/ui/assets/index-<hash>.js',
    ]);
    for (const asset of assets) {
      const response = await fetch(`${server.url}${asset}`);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type')).toBe(
        asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      );
      expect(response.headers.get('cache-control')).toContain('immutable');
    }
    for (const path of ['/new', '/runs/2026-01-01T00-00-00Z-any']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(await response.text()).toBe(html);
    }
    for (const path of [
      '/ui/assets/..%2F..%2Fpackage.json',
      '/ui/assets/index.ts',
      '/ui/assets/%2E%2E%2Findex.html',
      '/ui/app.js',
    ]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(path === '/ui/app.js' ? 401 : 404);
    }
  });

  it('generates a long random token when none is given', async () => {
    server = await startTestServer();
    const other = await startTestServer();
    try {
      expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(other.token).not.toBe(server.token);
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await other.close();
    }
  });
});

describe('request limits and validation', () => {
  it('refuses bodies over 1 MB with 413 and starts nothing', async () => {
    server = await startTestServer();
    const padding = `// ${'x'.repeat(1024 * 1024)}\n`;
    const dot = `${padding}digraph big { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }`;
    const json = await server.call('/pipelines', { method: 'POST', json: { dot } });
    expect(json.status).toBe(413);
    expect(((await json.json()) as ErrorBody).error.code).toBe('BODY_TOO_LARGE');
    const text = await server.call('/pipelines', {
      method: 'POST',
      headers: { 'Content-Type': 'text/vnd.graphviz' },
      body: dot,
    });
    expect(text.status).toBe(413);
    expect(await readdir(server.runsDir)).toEqual([]);
  });

  it('accepts a body just under the limit', async () => {
    server = await startTestServer({ maxBodyBytes: 4096 });
    const dot = 'digraph ok { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }';
    const small = await server.call('/pipelines', {
      method: 'POST',
      headers: { 'Content-Type': 'text/vnd.graphviz' },
      body: `${dot}\n//${'y'.repeat(4096 - dot.length - 4)}`,
    });
    expect(small.status).toBe(201);
    const large = await server.call('/pipelines', {
      method: 'POST',
      headers: { 'Content-Type': 'text/vnd.graphviz' },
      body: `${dot}\n//${'y'.repeat(4096)}`,
    });
    expect(large.status).toBe(413);
  });

  it('reports DOT errors with file:line:col and starts nothing', async () => {
    server = await startTestServer();
    const response = await server.call('/pipelines', {
      method: 'POST',
      json: { dot: 'digraph bad {\n  start [shape=Mdiamond]\n  start -> \n}' },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody & { error: { diagnostics: unknown[] } };
    expect(body.error.code).toBe('INVALID_PIPELINE');
    expect(body.error.message).toMatch(/pipeline\.dot:\d+:\d+/);
    expect(body.error.diagnostics.length).toBeGreaterThan(0);
    const invalid = await server.call('/pipelines', {
      method: 'POST',
      json: { dot: 'digraph nostart { a -> b }' },
    });
    const invalidBody = (await invalid.json()) as ErrorBody;
    expect(invalid.status).toBe(400);
    expect(invalidBody.error.message).toContain('start');
    expect(await readdir(server.runsDir)).toEqual([]);
  });

  it('validates request bodies with clear messages', async () => {
    server = await startTestServer();
    const cases: [unknown, string][] = [
      [{}, 'exactly one of "dot"'],
      [{ dot: 'digraph a {}', file: 'a.dot' }, 'exactly one of "dot"'],
      [{ dot: 'digraph a {}', simulat: true }, 'simulat'],
      [{ dot: 'digraph a {}', maxSteps: -1 }, 'maxSteps'],
    ];
    for (const [body, expected] of cases) {
      const response = await server.call('/pipelines', { method: 'POST', json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = (await response.json()) as ErrorBody;
      expect(error.error.code).toBe('INVALID_REQUEST');
      expect(error.error.message).toContain(expected);
    }
    const notJson = await server.call('/pipelines', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"dot": ',
    });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as ErrorBody).error.message).toContain('not valid JSON');
  });
});

describe('tool nodes (issue #9 "Safety")', () => {
  it('refuses pipelines with tool nodes unless the server allows tools, naming the node and --allow-tools', async () => {
    server = await startTestServer();
    const response = await server.call('/pipelines', { method: 'POST', json: { dot: TOOL_DOT } });
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe('TOOLS_NOT_ALLOWED');
    expect(body.error.message).toContain('tool node "compile" (line 3)');
    expect(body.error.message).toContain('--allow-tools');
    expect(body.error.nodes).toEqual(['compile']);
    const hooks = await server.call('/pipelines', {
      method: 'POST',
      json: {
        dot: 'digraph h { tool_hooks.pre="rm -rf /tmp/x"; start [shape=Mdiamond]; done [shape=Msquare]; start -> done }',
      },
    });
    expect(hooks.status).toBe(400);
    expect(((await hooks.json()) as ErrorBody).error.message).toContain('tool_hooks');
    expect(await readdir(server.runsDir)).toEqual([]);
  });

  it('refuses a plug-in handler that declares runsCommand, whatever its type is called, unless tools are allowed', async () => {
    // A handler registered under a custom type: the guard reads what it declares, not its type name.
    const workdir = await mkdtemp(join(tmpdir(), 'attractor-server-work-'));
    const createRegistry = () => {
      const registry = createDefaultRegistry();
      registry.register(
        defineHandler({
          type: 'deploy',
          runsCommand: true,
          async execute() {
            await writeFile(join(workdir, 'deployed.txt'), 'deployed');
            return { status: 'success' };
          },
        }),
      );
      return registry;
    };
    const dot = `digraph ship {
  start [shape=Mdiamond]
  ship [type="deploy", tool_command="./deploy.sh"]
  done [shape=Msquare]
  start -> ship -> done
}`;
    server = await startTestServer({ createRegistry, workdir });
    const refused = await server.call('/pipelines', { method: 'POST', json: { dot } });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as ErrorBody;
    expect(body.error.code).toBe('TOOLS_NOT_ALLOWED');
    expect(body.error.message).toContain('node "ship" (line 3), whose "deploy" handler runs commands');
    expect(body.error.nodes).toEqual(['ship']);
    expect(await readdir(server.runsDir)).toEqual([]);
    expect(await readdir(workdir)).toEqual([]);
    await server.close();

    server = await startTestServer({ createRegistry, workdir, allowTools: true });
    const id = await server.startRun(dot);
    const details = await waitFor(async () => {
      const current = await server!.json<RunDetails>(`/pipelines/${id}`);
      return current.live ? undefined : current;
    }, 'the deploy run to end');
    expect(details.state).toBe('success');
    expect(await readdir(workdir)).toEqual(['deployed.txt']);
  });

  it('runs tool nodes as real commands when the server allows tools', async () => {
    const workdir = await mkdtemp(join(tmpdir(), 'attractor-server-work-'));
    server = await startTestServer({ allowTools: true, workdir });
    const id = await server.startRun(TOOL_DOT);
    const details = await waitFor(async () => {
      const current = await server!.json<RunDetails>(`/pipelines/${id}`);
      return current.live ? undefined : current;
    }, 'the tool run to end');
    expect(details.state).toBe('success');
    expect(await readdir(workdir)).toContain('built.txt');
  });
});

describe('pipelines directory', () => {
  it('lists .dot files and starts them by relative path, never outside the directory', async () => {
    const root = await mkdtemp(join(tmpdir(), 'attractor-server-pipelines-'));
    const pipelinesDir = join(root, 'pipelines');
    await mkdir(join(pipelinesDir, 'team'), { recursive: true });
    await writeFile(join(pipelinesDir, 'review.dot'), await readFixture('review-gate.dot'));
    await writeFile(
      join(pipelinesDir, 'team', 'hello.dot'),
      'digraph hello { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }',
    );
    await writeFile(join(pipelinesDir, 'notes.txt'), 'not a pipeline');
    await writeFile(
      join(root, 'outside.dot'),
      'digraph outside { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }',
    );
    await symlink(join(root, 'outside.dot'), join(pipelinesDir, 'link.dot'));
    server = await startTestServer({ pipelinesDir });

    const { files } = await server.json<{ files: string[] }>('/pipeline-files');
    // Symbolic links are neither listed nor followed out of the directory.
    expect(files).toEqual(['review.dot', 'team/hello.dot']);

    const started = await server.call('/pipelines', { method: 'POST', json: { file: 'team/hello.dot' } });
    expect(started.status).toBe(201);
    for (const file of ['../outside.dot', '/etc/passwd', 'link.dot', 'notes.txt', 'missing.dot']) {
      const response = await server.call('/pipelines', { method: 'POST', json: { file } });
      expect(response.status, file).toBe(404);
      expect(((await response.json()) as ErrorBody).error.code, file).toBe('PIPELINE_FILE_NOT_FOUND');
    }
    expect(await readdir(server.runsDir)).toHaveLength(1);
  });

  it('explains that "file" needs a pipelines directory', async () => {
    server = await startTestServer();
    const response = await server.call('/pipelines', { method: 'POST', json: { file: 'review.dot' } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).error.message).toContain('--pipelines');
  });
});
