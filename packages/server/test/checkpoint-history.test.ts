/**
 * Time travel over a run's context: `GET /pipelines/{id}/checkpoints` pages the checkpoint history with the context
 * at each checkpoint (masked), for a run and for a child run; `POST /pipelines/{id}/fork` with `context` starts the
 * fork from a checkpoint's context plus the edited values.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckpointHistoryPage, RunDetails } from '../src/index.js';
import { readFixture, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SECRET = 'hunter2-in-the-history';

/** `count` runs twice (visits 1 and 2): its output routes it back once, then on to `report`. */
const COUNTER = `digraph counter {
  start [shape=Mdiamond]
  count [shape=parallelogram, tool_command="n=$(cat n.txt 2>/dev/null || echo 0); n=$((n+1)); echo $n > n.txt; echo $n"]
  report [shape=parallelogram, tool_command="echo reported ${SECRET}"]
  done [shape=Msquare]
  start -> count
  count -> count [condition="context.tool_stdout=1"]
  count -> report [condition="context.tool_stdout=2"]
  report -> done
}`;

async function waitForState(test: TestServer, runId: string, state: string): Promise<RunDetails> {
  return waitFor(async () => {
    const details = await test.json<RunDetails>(`/pipelines/${runId}`);
    return details.state === state ? details : undefined;
  }, `run ${runId} to be ${state}`);
}

async function serverWithWorkdir(): Promise<TestServer> {
  const workdir = await mkdtemp(join(tmpdir(), 'attractor-history-work-'));
  return startTestServer({ workdir, allowTools: true, secretValues: [SECRET] });
}

describe('GET /pipelines/{id}/checkpoints', () => {
  it('lists every checkpoint in order with its node, visit, stage directory, time and masked context', async () => {
    server = await serverWithWorkdir();
    const id = await server.startRun(COUNTER, {
      context: { note: 'first', api_token: 'value-of-a-secret-key' },
    });
    await waitForState(server, id, 'success');

    const page = await server.json<CheckpointHistoryPage>(`/pipelines/${id}/checkpoints`);
    const stages = page.checkpoints.map(({ index, node, visit, dir, at }) => ({
      index,
      node,
      visit,
      dir,
      at,
    }));
    expect(stages.slice(0, 5)).toEqual([
      // The checkpoint the run starts with, before any stage.
      { index: 0, node: null, visit: null, dir: null, at: null },
      { index: 1, node: 'start', visit: 1, dir: 'start', at: 'start@1' },
      { index: 2, node: 'count', visit: 1, dir: 'count/visits/1', at: 'count@1' },
      { index: 3, node: 'count', visit: 2, dir: 'count', at: 'count@2' },
      { index: 4, node: 'report', visit: 1, dir: 'report', at: 'report@1' },
    ]);
    expect(page.total).toBe(page.checkpoints.length);
    expect(page).toMatchObject({ offset: 0, limit: 50 });
    const [, , first, second, third] = page.checkpoints;
    expect(first!.context).toMatchObject({ note: 'first', tool_stdout: '1' });
    expect(second!.context).toMatchObject({ tool_stdout: '2' });
    expect(first!.nextNode).toBe('count');
    expect(second!.nextNode).toBe('report');
    expect(Number.isNaN(Date.parse(first!.timestamp))).toBe(false);
    expect(Date.parse(second!.timestamp)).toBeGreaterThanOrEqual(Date.parse(first!.timestamp));
    // Masked as /context masks: a known secret value and a secret-named key.
    expect(third!.context['tool.output']).toBe('reported [REDACTED]\n');
    const text = await (await server.call(`/pipelines/${id}/checkpoints`)).text();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('value-of-a-secret-key');
    expect(text).toContain('api_token');

    // Paged: offset and limit.
    const paged = await server.json<CheckpointHistoryPage>(`/pipelines/${id}/checkpoints?offset=2&limit=2`);
    expect(paged.checkpoints.map((entry) => entry.at)).toEqual(['count@1', 'count@2']);
    expect(paged).toMatchObject({ total: page.total, offset: 2, limit: 2 });
    const past = await server.json<CheckpointHistoryPage>(`/pipelines/${id}/checkpoints?offset=99`);
    expect(past.checkpoints).toEqual([]);
  });

  it('answers 404 for an unknown run or child, 400 for a bad offset, limit or child path', async () => {
    server = await serverWithWorkdir();
    const id = await server.startRun(COUNTER);
    await waitForState(server, id, 'success');
    const refused = async (path: string) => {
      const response = await server!.call(path);
      return {
        status: response.status,
        error: ((await response.json()) as { error: { message: string } }).error,
      };
    };
    expect(await refused('/pipelines/no-such-run/checkpoints')).toMatchObject({ status: 404 });
    expect(await refused(`/pipelines/${id}/checkpoints?child=checks/child`)).toMatchObject({ status: 404 });
    expect(await refused(`/pipelines/${id}/checkpoints?child=..`)).toMatchObject({ status: 400 });
    expect(await refused(`/pipelines/${id}/checkpoints?limit=0`)).toEqual({
      status: 400,
      error: expect.objectContaining({ message: 'Invalid query: limit: limit must be from 1 to 500' }),
    });
    expect(await refused(`/pipelines/${id}/checkpoints?limit=501`)).toMatchObject({ status: 400 });
    expect(await refused(`/pipelines/${id}/checkpoints?offset=-1`)).toEqual({
      status: 400,
      error: expect.objectContaining({ message: 'Invalid query: offset: offset must be a whole number' }),
    });
    expect(await refused(`/pipelines/${id}/checkpoints?page=2`)).toMatchObject({ status: 400 });
  });

  it("lists a child run's checkpoints (?child=)", async () => {
    // parent.dot runs checks.dot as its sub-pipeline `checks`.
    const pipelinesDir = new URL('./fixtures/sub-pipeline/', import.meta.url).pathname;
    const workdir = await mkdtemp(join(tmpdir(), 'attractor-history-child-'));
    server = await startTestServer({ pipelinesDir, workdir, allowTools: true });
    const started = await server.json<{ id: string }>('/pipelines', {
      method: 'POST',
      json: { file: 'parent.dot' },
    });
    await waitForState(server, started.id, 'success');
    const child = await server.json<CheckpointHistoryPage>(
      `/pipelines/${started.id}/checkpoints?child=${encodeURIComponent('checks/child')}`,
    );
    const lint = child.checkpoints.find((entry) => entry.node === 'lint');
    expect(lint).toMatchObject({ index: 2, visit: 1, at: 'lint@1' });
    expect(lint!.context).toMatchObject({ tool_stdout: 'lint ok' });
    const top = await server.json<CheckpointHistoryPage>(`/pipelines/${started.id}/checkpoints`);
    expect(top.checkpoints.map((entry) => entry.node)).toContain('checks');
    expect(top.checkpoints.map((entry) => entry.node)).not.toContain('lint');
  });
});

/** `pick` routes on `context.choice`, which the run starts with. */
const CHOOSER = await readFixture('chooser.dot');

describe('POST /pipelines/{id}/fork with context', () => {
  it("starts the fork from the checkpoint's context plus the edited values: the edited value routes it", async () => {
    server = await serverWithWorkdir();
    const source = await server.startRun(CHOOSER, { context: { choice: 'left', keep: 'me' } });
    expect((await waitForState(server, source, 'success')).nodeStatuses).toMatchObject({ left: 'success' });

    const forked = await server.call(`/pipelines/${source}/fork`, {
      method: 'POST',
      json: { from: 'pick@1', context: { choice: 'right', extra: { n: 2 } } },
    });
    expect(forked.status).toBe(200);
    const { id } = (await forked.json()) as { id: string };
    const done = await waitForState(server, id, 'success');
    expect(done.nodeStatuses).toMatchObject({ right: 'success' });
    expect(done.nodeStatuses.left).toBeUndefined();
    const history = await server.json<CheckpointHistoryPage>(`/pipelines/${id}/checkpoints`);
    const right = history.checkpoints.find((entry) => entry.node === 'right');
    expect(right!.context).toMatchObject({
      choice: 'right',
      keep: 'me',
      extra: { n: 2 },
      tool_stdout: 'went right',
    });
    // The source run is only read.
    const sourceHistory = await server.json<CheckpointHistoryPage>(`/pipelines/${source}/checkpoints`);
    expect(sourceHistory.checkpoints.at(-1)!.context).toMatchObject({ choice: 'left' });
  });

  it('refuses context that is not an object, reserved keys (naming the key and what to do) and a body that is not JSON', async () => {
    server = await serverWithWorkdir();
    const source = await server.startRun(CHOOSER, { context: { choice: 'left' } });
    await waitForState(server, source, 'success');
    const refused = async (body: string) => {
      const response = await server!.call(`/pipelines/${source}/fork`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      return { status: response.status, code: error.code, message: error.message };
    };
    expect(await refused('{"from":"pick","context":["choice","right"]}')).toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('context: context must be a JSON object of key: value'),
    });
    expect(await refused('{"from":"pick","context":{"internal.retry_count.pick":3}}')).toEqual({
      status: 400,
      code: 'INVALID_REQUEST',
      message:
        'Invalid request body: context: context key "internal.retry_count.pick" is the engine\'s own bookkeeping and cannot be set: leave it out',
    });
    expect((await refused('{"from":"pick","context":{"graph.goal":"x"}}')).message).toContain(
      'context key "graph.goal" mirrors a graph attribute: edit the attribute in the pipeline instead',
    );
    expect((await refused('{"from":"pick","context":{"outcome":"fail"}}')).message).toContain(
      'context key "outcome" is set by the engine after every stage',
    );
    expect((await refused('{"from":"pick","context":{" choice":"x"}}')).message).toContain(
      'has spaces around it',
    );
    expect(await refused('{"from":"pick","context":{"choice":right}}')).toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('The request body is not valid JSON'),
    });
    // Nothing was started by the refused requests.
    const { pipelines } = await server.json<{ pipelines: unknown[] }>('/pipelines');
    expect(pipelines).toHaveLength(1);
  });
});
