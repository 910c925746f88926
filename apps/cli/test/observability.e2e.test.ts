/**
 * Issue 32 with real processes: `attractor worker --metrics-port` and `attractor serve` scraped over HTTP while a run
 * executes (`/metrics`, `/healthz`, `/readyz`), `/readyz` turning false while PostgreSQL is down and true again once
 * it is back, `--log-format json` lines, and one run through two worker processes (and the `run --queue` that
 * enqueued it) exporting one trace to an OTLP/HTTP receiver.
 */
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectRunQueue, type RunQueue } from '@attractor/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { attractor, attractorWorker, temporaryDirectory } from './helpers/cli.js';
import { type OtlpReceiver, startOtlpReceiver } from './helpers/otlp-receiver.js';

const available = postgresAvailableForTests('attractor worker and serve observability end-to-end tests');

/** A stage that runs until its working directory holds `release`, then a gate. */
const GATED = `digraph Gated {
  start [shape=Mdiamond]
  work  [shape=parallelogram, tool_command="while [ ! -f release ]; do sleep 0.1; done; echo worked"]
  ask   [shape=hexagon, label="Ship it?"]
  ship  [shape=parallelogram, tool_command="echo shipped"]
  done  [shape=Msquare]
  start -> work -> ask
  ask -> ship [label="[S] Ship"]
  ask -> done [label="[H] Hold"]
  ship -> done
}`;

/** Resolves once `read()` gives a value other than undefined or false, polling every 100 ms. */
async function until<TValue>(
  read: () => Promise<TValue | undefined | false> | TValue | undefined | false,
  what: string,
  timeoutMs = 90_000,
): Promise<TValue> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Collects a child's output on one stream. */
function collect(child: ReturnType<typeof attractor>, stream: 'stdout' | 'stderr'): { text(): string } {
  let text = '';
  child[stream]?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { text: () => text };
}

/** The JSON lines of a `--log-format json` output (every line must parse). */
function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The value of a Prometheus sample whose name and labels match, or undefined. */
function sample(
  exposition: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const text = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => text.includes(`${key}="${value}"`)))
      return Number(match[3]);
  }
  return undefined;
}

async function get(url: string, headers: Readonly<Record<string, string>> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, text: await response.text() };
}

describe.skipIf(!available)('worker and server health, metrics, JSON logs and traces (issue 32)', () => {
  let server: PostgresTestServer;
  let dir: string;
  let queue: RunQueue;
  let receiver: OtlpReceiver;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await temporaryDirectory('attractor-observability-');
    await writeFile(join(dir, 'gated.dot'), GATED);
    receiver = await startOtlpReceiver();
    env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: server.url, ...receiver.env };
    queue = await connectRunQueue({ url: server.url });
  }, 120_000);
  afterAll(async () => {
    await queue?.close();
    await receiver?.close();
    await server?.stop();
  });

  it('a worker serves health and metrics during a run, readiness follows PostgreSQL, and two workers make one trace', async () => {
    // Worker A: JSON logs, metrics on a free port, spans.
    const first = attractorWorker(dir, env, ['--otel', '--metrics-port', '0', '--log-format', 'json']);
    const firstOut = collect(first, 'stdout');
    const started = await until(
      () => jsonLines(firstOut.text()).find((line) => line.msg === 'worker started'),
      'worker A to start',
    );
    const health = started.health as string;
    expect(health).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const enqueued = await attractor(['run', 'gated.dot', '--queue', '--simulate', '--otel'], {
      cwd: dir,
      env,
    });
    expect(enqueued.exitCode).toBe(0);
    const runId = enqueued.stdout.trim();

    // During the run: the stage `work` (after `start`) holds A's only slot.
    await until(async () => (await queue.readRun(runId))?.state === 'running', 'the run to start');
    const busy = await until(async () => {
      const metrics = await get(`${health}/metrics`);
      return sample(metrics.text, 'attractor_worker_busy_slots') === 1 &&
        sample(metrics.text, 'attractor_stage_duration_count', { attractor_node_id: 'start' }) === 1
        ? metrics
        : undefined;
    }, 'a busy slot and the completed start stage in /metrics');
    expect(busy.status).toBe(200);
    expect(sample(busy.text, 'attractor_worker_slots')).toBe(1);
    expect(sample(busy.text, 'attractor_queue_runs', { attractor_run_state: 'running' })).toBe(1);
    expect(sample(busy.text, 'attractor_queue_depth')).toBe(0);
    expect(sample(busy.text, 'attractor_queue_latency_count')).toBe(1);
    expect(await get(`${health}/healthz`)).toEqual({ status: 200, text: '{"status":"ok"}' });
    const ready = await get(`${health}/readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({
      ready: true,
      checks: { store: { ok: true }, queue: { ok: true } },
    });

    await writeFile(join(dir, 'work', runId, 'release'), '');
    await until(async () => (await queue.readRun(runId))?.state === 'waiting', 'the run to wait at the gate');
    const suspended = await until(async () => {
      const metrics = (await get(`${health}/metrics`)).text;
      return sample(metrics, 'attractor_worker_jobs_total', { attractor_job_outcome: 'suspended' }) === 1
        ? metrics
        : undefined;
    }, 'the suspended job in /metrics');
    expect(sample(suspended, 'attractor_worker_busy_slots')).toBe(0);
    expect(sample(suspended, 'attractor_stage_duration_count', { attractor_node_id: 'work' })).toBe(1);
    first.kill('SIGTERM');
    expect((await first).exitCode).toBe(0);
    const logged = jsonLines(firstOut.text());
    expect(logged).toContainEqual(
      expect.objectContaining({
        msg: 'stage completed',
        runId,
        node: 'work',
        status: 'success',
        level: 'info',
      }),
    );
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: 'run waits at a human gate', runId, node: 'ask' }),
    );

    // Worker B finishes the run after the answer.
    const second = attractorWorker(dir, env, ['--otel', '--metrics-port', '0']);
    const secondErr = collect(second, 'stderr');
    const secondHealth = await until(
      () => /health and metrics: (http:\/\/\S+)\/healthz/.exec(secondErr.text())?.[1],
      'worker B to start',
    );
    expect((await attractor(['answer', runId, 'S'], { cwd: dir, env })).exitCode).toBe(0);
    await until(
      async () => (await queue.readRun(runId))?.state === 'success',
      'the run to succeed on worker B',
    );
    await access(join(dir, 'work', runId, 'release'));

    // PostgreSQL goes away: not ready, naming what is unreachable; back: ready again.
    await server.pause();
    const down = await until(async () => {
      const response = await get(`${secondHealth}/readyz`);
      return response.status === 503 ? response : undefined;
    }, '/readyz to turn false');
    const report = JSON.parse(down.text) as { ready: boolean; checks: Record<string, { ok: boolean }> };
    expect(report.ready).toBe(false);
    expect(report.checks.store?.ok).toBe(false);
    expect(report.checks.queue?.ok).toBe(false);
    expect((await get(`${secondHealth}/healthz`)).status).toBe(200);
    await server.resume();
    await until(
      async () => (await get(`${secondHealth}/readyz`)).status === 200,
      '/readyz to turn true again',
    );
    second.kill('SIGTERM');
    expect((await second).exitCode).toBe(0);

    // One trace: the enqueue, each worker's job and the run's walks on both.
    const spans = receiver.spans().filter((span) => span.attributes['attractor.run.id'] === runId);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const send = spans.filter((span) => span.name === 'send attractor-runs');
    expect(send.map((span) => span.resource['service.name'])).toEqual(['attractor']);
    const jobs = spans.filter((span) => span.name === 'process attractor-runs');
    expect(jobs.map((job) => job.attributes['attractor.job.outcome'])).toEqual(['suspended', 'success']);
    expect(jobs.every((job) => job.parentSpanId === send[0]?.spanId)).toBe(true);
    expect(jobs.every((job) => job.resource['service.name'] === 'attractor-worker')).toBe(true);
    expect(jobs[0]?.resource['service.instance.id']).not.toBe(jobs[1]?.resource['service.instance.id']);
    const runs = spans.filter((span) => span.name === 'run Gated');
    expect(runs.map((run) => run.parentSpanId)).toEqual(jobs.map((job) => job.spanId));
    const ship = spans.find((span) => span.name === 'stage ship');
    expect(ship?.parentSpanId).toBe(runs[1]?.spanId);
  }, 300_000);

  it('the server serves health and metrics during a local run and logs JSON lines with run ids and nodes', async () => {
    const token = 'observability-token-7c1e9f';
    const serve = attractor(
      ['serve', '--port', '0', '--simulate', '--allow-tools', '--log-format', 'json', '--workdir', dir],
      { cwd: dir, env: { ATTRACTOR_SERVER_TOKEN: token } },
    );
    const out = collect(serve, 'stdout');
    const listening = await until(
      () => jsonLines(out.text()).find((line) => line.msg === 'listening'),
      'the server to listen',
    );
    const url = listening.url as string;
    expect(listening.bearerFrom).toBe('ATTRACTOR_SERVER_TOKEN');
    const auth = { Authorization: `Bearer ${token}` };
    const response = await fetch(`${url}/pipelines`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ dot: GATED.replace('Gated', 'Served') }),
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };

    const during = await until(async () => {
      const metrics = await get(`${url}/metrics`, auth);
      return sample(metrics.text, 'attractor_server_runs', { attractor_run_state: 'running' }) === 1
        ? metrics
        : undefined;
    }, 'a running run in /metrics');
    expect(during.status).toBe(200);
    expect(sample(during.text, 'http_server_request_duration_count', { http_route: '/pipelines' })).toBe(1);
    expect((await get(`${url}/metrics`)).status).toBe(401);
    expect((await get(`${url}/healthz`)).status).toBe(200);
    expect(JSON.parse((await get(`${url}/readyz`)).text)).toEqual({
      ready: true,
      checks: { store: { ok: true } },
    });

    await writeFile(join(dir, 'release'), '');
    await until(
      () => jsonLines(out.text()).find((line) => line.msg === 'human gate asked' && line.runId === id),
      'the run to reach its gate',
    );
    serve.kill('SIGTERM');
    expect((await serve).exitCode).toBe(0);
    const lines = jsonLines(out.text());
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'run started', runId: id, pipeline: 'Served' }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'stage completed', runId: id, node: 'work', status: 'success' }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'request', method: 'POST', route: '/pipelines', status: 201 }),
    );
    expect(out.text()).not.toContain(token);
  }, 180_000);
});
