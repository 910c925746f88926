/**
 * A server that takes bursts (issue 34 §11): starts queue instead of being refused, and a refusal when the server is
 * really busy is `503 SERVER_BUSY` with `Retry-After`, never a limit that blames the pipeline. Timings are the
 * benchmark's business (bench/server-load.bench.ts); these tests check the answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../src/index.js';
import { startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A small pipeline with its own goal (each one parsed, none taken from the graph cache). */
const small = (index: number) => `digraph Burst {
  graph [goal="burst ${index}"]
  start [shape=Mdiamond]
  plan [prompt="Plan $goal"]
  review [prompt="Review the plan"]
  done [shape=Msquare]
  start -> plan -> review -> done
}`;

/** A pipeline over inProcessBytes (validated in a worker thread). */
const large = (index: number) => {
  const stages = Array.from({ length: 40 }, (_, stage) => `s${stage}`);
  return `digraph Large {\n  graph [goal="large ${index}"]\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n${stages.map((id) => `  ${id} [prompt="${'y'.repeat(60)}"]`).join('\n')}\n  start -> ${stages.join(' -> ')} -> done\n}\n`;
};

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: { id?: string; error?: { code: string; message: string } };
}

async function post(dot: string): Promise<Answer> {
  const response = await server!.call('/pipelines', { method: 'POST', json: { dot } });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Answer['body'],
  };
}

describe('a burst of starts (issue 34 §11)', () => {
  it('starts every one of 60 pipelines sent at once, and answers GETs meanwhile', async () => {
    server = await startTestServer();
    const posts = Promise.all(Array.from({ length: 60 }, (_, index) => post(small(index))));
    const list = await server.call('/pipelines');
    expect(list.status).toBe(200);
    const answers = await posts;
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 60 }, () => 201));
    const ids = answers.map((answer) => answer.body.id!);
    expect(new Set(ids).size).toBe(60);
    const runs = await waitFor(
      async () => {
        const { pipelines } = await server!.json<{ pipelines: RunSummary[] }>('/pipelines');
        return pipelines.length === 60 && pipelines.every((run) => !run.live) ? pipelines : undefined;
      },
      'the 60 runs to end',
      120_000,
    );
    expect(runs.every((run) => run.state === 'success')).toBe(true);
    expect(new Set(runs.map((run) => run.goal)).size).toBe(60);
  });

  it('refuses with 503 SERVER_BUSY and Retry-After when maxQueuedValidations are waiting, and names no pipeline limit', async () => {
    server = await startTestServer({
      limits: { inProcessBytes: 1_000, validateThreads: 1, maxQueuedValidations: 1 },
    });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, index) => post(large(index))));
    const busy = answers.filter((answer) => answer.status === 503);
    expect(answers.every((answer) => answer.status === 201 || answer.status === 503)).toBe(true);
    expect(answers.some((answer) => answer.status === 201)).toBe(true);
    expect(busy.length).toBeGreaterThan(0);
    for (const answer of busy) {
      expect(answer.body.error?.code).toBe('SERVER_BUSY');
      expect(answer.body.error?.message).toMatch(
        /^The server is busy: \d+ pipelines are waiting to be validated/,
      );
      expect(answer.body.error?.message).not.toContain('validateTimeoutMs');
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    }
  });

  it('runs a large pipeline validated in a worker thread to the end, with its graph drawn', async () => {
    server = await startTestServer({ limits: { inProcessBytes: 1_000 } });
    const answer = await post(large(1));
    expect(answer.status).toBe(201);
    const id = answer.body.id!;
    await waitFor(async () => !(await server!.json<RunSummary>(`/pipelines/${id}`)).live, 'the run to end');
    expect((await server.json<RunSummary>(`/pipelines/${id}`)).state).toBe('success');
    const svg = await (await server.call(`/pipelines/${id}/graph`)).text();
    expect(svg).toMatch(/<g id="node&#45;s39" class="node status&#45;success">/);
  });
});
