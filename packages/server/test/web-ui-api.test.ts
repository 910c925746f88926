/**
 * The API endpoints the web UI needs (issue "A web UI people would choose"): `GET /server`, the stage directories
 * of parallel branches with their stdout/stderr, branch stage statuses, run totals, and `GET /events`.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunDetails, RunSummary, ServerInfo, StageDirectory } from '../src/index.js';
import { serverInfoSchema, stageDirectorySchema } from '../src/index.js';
import { openEvents, readFixture, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function finished(test: TestServer, id: string): Promise<RunDetails> {
  return waitFor(async () => {
    const details = await test.json<RunDetails>(`/pipelines/${id}`);
    return details.live ? undefined : details;
  }, `run ${id} to end`);
}

describe('GET /server', () => {
  it('reports that the default server simulates every run, and that fork is offered', async () => {
    server = await startTestServer();
    const info = serverInfoSchema.parse(await server.json<ServerInfo>('/server'));
    expect(info).toEqual({
      simulation: 'always',
      allowTools: false,
      pipelinesDirectory: false,
      capabilities: { fork: true },
    });
  });

  it('reports the mode it is given and whether tools are allowed', async () => {
    server = await startTestServer({ simulation: 'required', allowTools: true });
    expect(await server.json<ServerInfo>('/server')).toMatchObject({
      simulation: 'required',
      allowTools: true,
    });
  });
});

describe('stage directories of parallel branches', () => {
  it('lists branch stages with their files, colours them, and serves their stdout and stderr', async () => {
    server = await startTestServer({ allowTools: true });
    const id = await server.startRun(await readFixture('parallel-failing-branch.dot'));
    const details = await finished(server, id);

    expect(details.nodeStatuses).toMatchObject({
      fan: 'partial_success',
      a1: 'success',
      a2: 'success',
      b1: 'fail',
      join: 'success',
    });
    const directories = details.stageDirectories.map((entry) => stageDirectorySchema.parse(entry));
    const byDir = new Map(directories.map((entry) => [entry.dir, entry]));
    expect(byDir.get('fan/branches/b1/b1')).toEqual({
      dir: 'fan/branches/b1/b1',
      nodeId: 'b1',
      branchPath: ['b1'],
      files: [
        { name: 'status.json', bytes: expect.any(Number) },
        { name: 'stdout.txt', bytes: 0 },
        { name: 'stderr.txt', bytes: 24 },
      ],
      visits: [],
    });
    expect(byDir.get('fan/branches/a1/a2')?.files.map((file) => file.name)).toEqual([
      'prompt.md',
      'response.md',
      'status.json',
    ]);

    const stage = await server.json<StageDirectory>(`/pipelines/${id}/stage?dir=fan/branches/b1/b1`);
    expect(stage).toEqual(byDir.get('fan/branches/b1/b1'));
    const stderr = await server.call(`/pipelines/${id}/stage-file?dir=fan/branches/b1/b1&name=stderr.txt`);
    expect(stderr.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await stderr.text()).toBe('b1 broke: missing input\n');
    const stdout = await server.call(`/pipelines/${id}/stage-file?dir=fan/branches/a1/a1&name=stdout.txt`);
    expect(await stdout.text()).toBe('hello from a1\n');
    // The top-level route serves tool output files too.
    const files = await server.call(`/pipelines/${id}/stages/start/status.json`);
    expect(files.status).toBe(200);
  });

  it("lists a foreach item's stages, named by the item's part of the branch path, and serves their output", async () => {
    server = await startTestServer({ allowTools: true });
    const id = await server.startRun(
      [
        'digraph items {',
        '  start [shape=Mdiamond]',
        '  each [type="foreach", over="files", as="file", mode=serial]',
        '  check [shape=parallelogram, tool_command="echo checked $item.file"]',
        '  join [shape=tripleoctagon]',
        '  done [shape=Msquare]',
        '  start -> each -> check -> join -> done',
        '}',
      ].join('\n'),
      { context: { files: ['a.txt', 'b.txt'] } },
    );
    const details = await finished(server, id);
    const listed = details.stageDirectories.filter((entry) => entry.dir.startsWith('each/items/'));
    expect(listed.map((entry) => [entry.dir, entry.branchPath])).toEqual([
      ['each/items/0/check', ['items/0']],
      ['each/items/1/check', ['items/1']],
    ]);
    const stage = await server.json<StageDirectory>(`/pipelines/${id}/stage?dir=each/items/1/check`);
    expect(stage).toMatchObject({ dir: 'each/items/1/check', nodeId: 'check', branchPath: ['items/1'] });
    const stdout = await server.call(`/pipelines/${id}/stage-file?dir=each/items/1/check&name=stdout.txt`);
    expect(await stdout.text()).toBe('checked b.txt\n');
    for (const query of ['dir=each/items/x/check', 'dir=each/items/../check'])
      expect((await server.call(`/pipelines/${id}/stage?${query}`)).status, query).toBe(400);
  });

  it('refuses directories outside the stage layout and file names it does not serve', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('timed-gate.dot'));
    await waitFor(
      async () => (await server!.json<{ questions: unknown[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the gate',
    );
    for (const query of [
      'dir=..',
      'dir=draft/..',
      'dir=draft/branches/../x',
      'dir=/etc',
      'dir=draft&name=secret.txt',
    ]) {
      const response = await server.call(`/pipelines/${id}/stage?${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('INVALID_REQUEST');
    }
    const missing = await server.call(`/pipelines/${id}/stage?dir=done`);
    expect(missing.status).toBe(404);
    const noName = await server.call(`/pipelines/${id}/stage-file?dir=draft`);
    expect(noName.status).toBe(400);
    const prompt = await server.call(`/pipelines/${id}/stage-file?dir=draft&name=prompt.md`);
    expect(await prompt.text()).toBe('Draft the change for: Ship a reviewed change');
  });
});

describe('run totals and GET /events', () => {
  it('sums tokens and cost into the summary and streams summaries as runs change', async () => {
    server = await startTestServer({
      backendFactory: () => ({
        async run(request) {
          request.emit({ type: 'agent.usage', inputTokens: 100, outputTokens: 20, costUsd: 0.5 } as never);
          return 'ok';
        },
      }),
    });
    const controller = new AbortController();
    const response = await server.call('/events', { signal: controller.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const seen: RunSummary[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          for (const match of buffer.matchAll(/event: run\ndata: (.*)\n/g)) seen.push(JSON.parse(match[1]!));
          buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 2);
        }
      } catch {
        // Aborted at the end of the test.
      }
    })();

    const id = await server.startRun(
      'digraph usage { start [shape=Mdiamond]; a [prompt="x"]; b [prompt="y"]; done [shape=Msquare]; start -> a -> b -> done }',
    );
    const details = await finished(server, id);
    expect(details.usage).toEqual({ inputTokens: 200, outputTokens: 40, costUsd: 1 });
    expect(details.endedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(details.durationMs).toBeGreaterThanOrEqual(0);
    const listed = (await server.json<{ pipelines: RunSummary[] }>('/pipelines')).pipelines[0];
    expect(listed?.usage).toEqual({ inputTokens: 200, outputTokens: 40, costUsd: 1 });

    await waitFor(() => seen.some((summary) => summary.id === id && summary.state === 'success'), 'the end');
    expect(seen.some((summary) => summary.id === id && summary.live)).toBe(true);
    controller.abort();
    await reading;
  });
});

describe('GET /pipelines/{id}/events with child pipelines', () => {
  it('replays the events of a finished sub-pipeline to a fresh client, without ids', async () => {
    const root = await mkdtemp(join(tmpdir(), 'attractor-server-child-events-'));
    await mkdir(join(root, 'pipelines'));
    await writeFile(
      join(root, 'pipelines', 'parent.dot'),
      'digraph Parent { start [shape=Mdiamond]; checks [type="subgraph", graph_ref="checks.dot"]; exit [shape=Msquare]; start -> checks -> exit }',
    );
    await writeFile(
      join(root, 'pipelines', 'checks.dot'),
      'digraph Checks { start [shape=Mdiamond]; review [prompt="Review"]; exit [shape=Msquare]; start -> review -> exit }',
    );
    server = await startTestServer({
      allowTools: true,
      pipelinesDir: join(root, 'pipelines'),
      workdir: root,
    });
    const started = await server.json<{ id: string }>('/pipelines', {
      method: 'POST',
      json: { file: 'parent.dot' },
    });
    await finished(server, started.id);

    const fresh = await openEvents(server, started.id);
    await fresh.ended;
    const child = fresh.messages.filter((message) => message.event === undefined && message.id === undefined);
    const childEvents = child.map(
      (message) => JSON.parse(message.data) as { type: string; nodeId?: string; branchPath?: string[] },
    );
    expect(
      childEvents.filter((event) => event.type === 'stage.completed').map((event) => event.nodeId),
    ).toEqual(['start', 'review', 'exit']);
    expect(childEvents.every((event) => event.branchPath?.[0] === 'child:checks')).toBe(true);

    // A client that reconnects after the last event has seen them: nothing is sent again.
    const last = Number(fresh.messages.filter((message) => message.id !== undefined).at(-1)!.id);
    const again = await openEvents(server, started.id, last);
    await again.ended;
    expect(again.messages.map((message) => message.event)).toEqual(['end']);
  });
});
