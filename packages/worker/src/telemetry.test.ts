/**
 * Issue 32: one run through two workers yields one trace (the trace context stored with the run at enqueue), and a
 * worker's metrics (slots, queue runs by state, queue latency, jobs by outcome) on its meter.
 */
import { join } from 'node:path';
import type { PipelineEvent } from '@attractor/engine';
import { context, propagation, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directoryCatalog,
  postgresAvailableForTests,
  prepareSimulated,
  startPostgresServer,
  tempDir,
} from '../test/worker-fixtures.js';
import { connectRunQueue, type RunQueue, startWorker, WORKER_METRICS } from './index.js';

const available = postgresAvailableForTests('@attractor/worker telemetry tests');

const GATE = `digraph gate {
  start [shape=Mdiamond]
  ask [shape=hexagon, label="Ship it?"]
  ship [shape=parallelogram, tool_command="echo shipped"]
  done [shape=Msquare]
  start -> ask
  ask -> ship [label="[S] Ship"]
  ask -> done [label="[H] Hold"]
  ship -> done
}`;

class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** A tracer provider of its own per process role, as on separate machines; all export into one list. */
function tracing(exporter: InMemorySpanExporter) {
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { provider, tracer: provider.getTracer('worker-telemetry-test') };
}

describe.skipIf(!available)('worker telemetry (issue 32)', () => {
  let server: Awaited<ReturnType<typeof startPostgresServer>>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let queue: RunQueue;
  const exporter = new InMemorySpanExporter();
  const client = tracing(exporter);
  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    server = await startPostgresServer();
    dir = await tempDir('telemetry');
    queue = await connectRunQueue({ url: server.url, tracer: client.tracer });
  });
  afterAll(async () => {
    await queue?.close();
    await server?.stop();
    await dir?.cleanup();
    propagation.disable();
    context.disable();
  });

  it('continues the trace the run was enqueued in on each worker that executes it, and records worker metrics', async () => {
    const begin = (
      workerId: string,
      telemetry: Parameters<typeof startWorker>[0]['telemetry'],
      onRunEvent?: (event: PipelineEvent) => void,
    ) =>
      startWorker({
        catalog: directoryCatalog(join(dir.path, 'runs')),
        queueUrl: server.url,
        workdirRoot: join(dir.path, 'work'),
        prepare: prepareSimulated,
        pollingIntervalSeconds: 0.5,
        workerId,
        ...(telemetry === undefined ? {} : { telemetry }),
        ...(onRunEvent === undefined ? {} : { onRunEvent }),
      });
    const first = tracing(exporter);
    const reader = new CollectingReader();
    const meters = new MeterProvider({ readers: [reader] });
    const recorded: PipelineEvent[] = [];
    const asker = await begin('asker', { tracer: first.tracer, meter: meters.getMeter('asker') }, (event) =>
      recorded.push(event),
    );
    const runId = await queue.enqueueRun({ source: GATE, graphName: 'gate' });
    expect((await queue.readRun(runId))?.request.trace?.traceparent).toMatch(
      /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/,
    );
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('waiting');
    await expect.poll(() => asker.running(), { timeout: 5_000 }).toEqual([]);
    await asker.checkQueue();

    const { resourceMetrics } = await reader.collect();
    const metric = (name: string) =>
      resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .filter((candidate) => candidate.descriptor.name === name)
        .flatMap((candidate) => candidate.dataPoints as DataPoint<unknown>[]);
    expect(metric(WORKER_METRICS.slots).map((point) => point.value)).toEqual([1]);
    expect(metric(WORKER_METRICS.busySlots).map((point) => point.value)).toEqual([0]);
    expect(metric(WORKER_METRICS.queueDepth).map((point) => point.value)).toEqual([0]);
    expect(metric(WORKER_METRICS.queueRuns)).toContainEqual(
      expect.objectContaining({ attributes: { 'attractor.run.state': 'waiting' }, value: 1 }),
    );
    expect(metric(WORKER_METRICS.jobs)).toEqual([
      expect.objectContaining({ attributes: { 'attractor.job.outcome': 'suspended' }, value: 1 }),
    ]);
    expect(
      (metric(WORKER_METRICS.queueLatency) as DataPoint<Histogram>[]).map((point) => point.value.count),
    ).toEqual([1]);
    expect(recorded.filter((event) => event.runId === runId).at(-1)?.type).toBe('pipeline.suspended');
    await asker.stop();
    await meters.shutdown();

    const second = tracing(exporter);
    const finisher = await begin('finisher', { tracer: second.tracer });
    await queue.answerRun({ runId, text: 'ship' });
    await expect.poll(async () => (await queue.readRun(runId))?.state, { timeout: 60_000 }).toBe('success');
    await finisher.stop();

    for (const { provider } of [client, first, second]) await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans.every((span) => span.attributes['attractor.run.id'] === runId)).toBe(true);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    const send = spans.filter((span) => span.name === 'send attractor-runs');
    expect(send).toHaveLength(1);
    expect(send[0]?.kind).toBe(SpanKind.PRODUCER);
    const jobs = spans.filter((span) => span.name === 'process attractor-runs');
    expect(
      jobs.map((job) => [job.attributes['attractor.worker.id'], job.attributes['attractor.job.outcome']]),
    ).toEqual([
      ['asker', 'suspended'],
      ['finisher', 'success'],
    ]);
    for (const job of jobs) {
      expect(job.kind).toBe(SpanKind.CONSUMER);
      expect(job.parentSpanContext?.spanId).toBe(send[0]?.spanContext().spanId);
    }
    const runs = spans.filter((span) => span.name === 'run gate');
    expect(
      runs.map((run) => [run.parentSpanContext?.spanId, run.attributes['attractor.run.resumed']]),
    ).toEqual([
      [jobs[0]?.spanContext().spanId, false],
      [jobs[1]?.spanContext().spanId, true],
    ]);
    const ship = spans.find((span) => span.name === 'stage ship');
    expect(ship?.parentSpanContext?.spanId).toBe(runs[1]?.spanContext().spanId);
    expect(spans.find((span) => span.name === 'tool_command ship')?.parentSpanContext?.spanId).toBe(
      ship?.spanContext().spanId,
    );
  }, 180_000);
});
