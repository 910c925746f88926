/**
 * Issue 32 for the server: `/healthz` and `/readyz` without a token, `/metrics` behind it, a SERVER span per request
 * that continues the caller's trace and parents the runs it starts, and the runs gauge on the meter.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_METRICS } from '../src/index.js';
import { startTestServer, type TestServer, waitFor } from './test-server.js';

class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const DOT = `digraph Served {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  draft [prompt="Write it"]
  start -> draft -> exit
}`;

let server: TestServer | undefined;
beforeAll(() => {
  // What the OpenTelemetry Node SDK registers (the CLI's `--otel`): a context manager and W3C Trace Context.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  propagation.disable();
  context.disable();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('server health, metrics and request spans (issue 32)', () => {
  it('answers /healthz and /readyz without a token and /metrics only with it', async () => {
    server = await startTestServer({
      metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: '# HELP up\nup 1\n' }),
    });
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { store: { ok: true } } });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const metrics = await server.call('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect(await metrics.text()).toBe('# HELP up\nup 1\n');
  });

  it('is not ready when runs cannot be created in its runs directory', async () => {
    const blocker = join(
      await import('node:os').then((os) => os.tmpdir()),
      `attractor-not-a-dir-${process.pid}`,
    );
    await writeFile(blocker, 'a file where the runs directory should be');
    server = await startTestServer({ runsDir: join(blocker, 'runs') });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    const report = (await ready.json()) as {
      ready: boolean;
      checks: { store: { ok: boolean; error: string } };
    };
    expect(report.ready).toBe(false);
    expect(report.checks.store.ok).toBe(false);
    expect(report.checks.store.error).toMatch(/ENOTDIR|EEXIST/);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
  });

  it("traces requests (continuing the caller's traceparent), parents the runs they start, and counts runs by state", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const reader = new CollectingReader();
    const meters = new MeterProvider({ readers: [reader] });
    server = await startTestServer({
      telemetry: { tracer: provider.getTracer('server-test'), meter: meters.getMeter('server-test') },
    });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await server.call('/pipelines', {
      method: 'POST',
      json: { dot: DOT, simulate: true },
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    await waitFor(
      async () => (await server!.json(`/pipelines/${id}`)).state === 'success',
      'the run to succeed',
    );
    await server.json(`/pipelines/${id}`);
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const post = spans.find((span) => span.name === 'POST /pipelines');
    expect(post?.spanContext().traceId).toBe(traceId);
    expect(post?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(post?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 201,
    });
    const run = spans.find((span) => span.name === 'run Served');
    expect(run?.parentSpanContext?.spanId).toBe(post?.spanContext().spanId);
    expect(spans.find((span) => span.name === 'stage draft')?.parentSpanContext?.spanId).toBe(
      run?.spanContext().spanId,
    );
    expect(spans.some((span) => span.name === 'GET /pipelines/:id')).toBe(true);

    const { resourceMetrics } = await reader.collect();
    const points = (name: string) =>
      resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .filter((metric) => metric.descriptor.name === name)
        .flatMap((metric) => metric.dataPoints as DataPoint<unknown>[]);
    expect(points(SERVER_METRICS.runs)).toContainEqual(
      expect.objectContaining({ attributes: { 'attractor.run.state': 'success' }, value: 1 }),
    );
    expect(points('http.server.request.duration').length).toBeGreaterThan(0);
    expect(points('attractor.stage.duration').length).toBeGreaterThan(0);
    await meters.shutdown();
  });
});
