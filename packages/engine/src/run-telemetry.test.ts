import { context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registryWith, run } from '../test/helpers.js';
import type { Handler } from './handler.js';
import type { HandlerRuntime } from './handler-runtime.js';
import { TELEMETRY_ATTRIBUTES as ATTR, TELEMETRY_METRICS } from './pipeline-telemetry.js';
import { createRunMetrics } from './run-metrics.js';
import { createTestGraph } from './test/graph-builder.js';
import { createScriptedHandler } from './test/scripted-handler.js';

/** Collects on demand (the test reads the meter's state after a run). */
class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('run-telemetry-test');
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});
afterEach(() => exporter.reset());

/** The spans ended so far (the processor exports on a later turn). */
async function finishedSpans(): Promise<ReadableSpan[]> {
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

/** A parallel handler in the built-in one's shape: a branch per outgoing edge, up to the fan-in. */
const parallel: Handler = {
  async execute({ node, context: runContext, graph, runtime }) {
    const results = await Promise.all(
      graph.outgoing(node.id).map((edge) =>
        runtime.runBranch({
          startNodeId: edge.to,
          context: runContext.clone(),
          branchId: edge.to,
          stopBefore: (candidate) => graph.handlerType(candidate) === 'parallel.fan_in',
        }),
      ),
    );
    return { status: 'success', suggestedNextIds: [results[0]!.stoppedAt!] };
  },
};

const byName = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const only = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('run telemetry (PipelineTelemetry)', () => {
  it('gives the run a span, each stage attempt a child span, and branch stages the fan-out stage as parent', async () => {
    const handler = createScriptedHandler();
    const graph = createTestGraph({
      id: 'Fan',
      nodes: [
        { id: 'fan', shape: 'component' },
        { id: 'join', shape: 'tripleoctagon' },
      ],
      edges: ['start -> fan', 'fan -> a1 -> a2 -> join', 'fan -> b1 -> join', 'join -> exit'],
    });
    const { result } = await run({
      graph,
      registry: registryWith(handler, { parallel }),
      telemetry: { tracer },
    });
    expect(result.status).toBe('success');
    const spans = await finishedSpans();
    const runSpan = only(spans, 'run Fan');
    expect(parentOf(runSpan)).toBeUndefined();
    expect(runSpan.attributes).toMatchObject({
      [ATTR.pipeline]: 'Fan',
      [ATTR.runId]: 'run',
      [ATTR.runStatus]: 'success',
      [ATTR.runResumed]: false,
    });
    const fan = only(spans, 'stage fan');
    for (const name of ['start', 'fan', 'join', 'exit']) {
      expect(parentOf(only(spans, `stage ${name}`)), name).toBe(runSpan.spanContext().spanId);
    }
    for (const name of ['a1', 'a2', 'b1']) {
      const stage = only(spans, `stage ${name}`);
      expect(parentOf(stage), name).toBe(fan.spanContext().spanId);
      expect(stage.attributes[ATTR.branchPath]).toEqual([name === 'b1' ? 'b1' : 'a1']);
    }
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(fan.attributes).toMatchObject({
      [ATTR.pipeline]: 'Fan',
      [ATTR.runId]: 'run',
      [ATTR.node]: 'fan',
      [ATTR.handlerType]: 'parallel',
      [ATTR.stageAttempt]: 1,
      [ATTR.stageVisit]: 1,
      [ATTR.outcome]: 'success',
    });
  });

  it('runs the handler in its stage span: spans it starts from the active context nest under the stage', async () => {
    let seen: HandlerRuntime['telemetry'];
    const handler: Handler = {
      async execute({ runtime }) {
        seen = runtime.telemetry;
        await new Promise((resolve) => setImmediate(resolve));
        const own: Span = tracer.startSpan('own work');
        own.end();
        runtime.telemetry?.tracer.startSpan('explicit', {}, runtime.telemetry.context).end();
        return { status: 'success' };
      },
    };
    await run({
      graph: createTestGraph({ id: 'One', edges: ['start -> work -> exit'] }),
      registry: registryWith(createScriptedHandler(), { codergen: handler }),
      telemetry: { tracer },
    });
    const spans = await finishedSpans();
    const stage = only(spans, 'stage work');
    expect(parentOf(only(spans, 'own work'))).toBe(stage.spanContext().spanId);
    expect(parentOf(only(spans, 'explicit'))).toBe(stage.spanContext().spanId);
    expect(seen?.recordContent).toBe(false);
  });

  it('puts the stage LLM usage on its span and masks secrets in failure reasons', async () => {
    const secret = 'sk-test-0123456789abcdefghij';
    const handler = createScriptedHandler({
      script: {
        draft: [
          ({ runtime }) => {
            runtime.emit({
              type: 'agent.usage',
              inputTokens: 100,
              outputTokens: 20,
              model: 'gpt-x',
              costUsd: 0.5,
            });
            runtime.emit({
              type: 'agent.usage',
              inputTokens: 50,
              outputTokens: 5,
              model: 'gpt-x',
              costUsd: 0.25,
            });
            return { status: 'success' };
          },
        ],
        check: [{ status: 'fail', failureReason: `denied for key ${secret}`, retryable: false }],
      },
    });
    await run({
      graph: createTestGraph({ id: 'Usage', edges: ['start -> draft -> check -> exit'] }),
      registry: registryWith(handler),
      telemetry: { tracer },
      secretValues: [secret],
    });
    const spans = await finishedSpans();
    expect(only(spans, 'stage draft').attributes).toMatchObject({
      [ATTR.model]: 'gpt-x',
      [ATTR.inputTokens]: 150,
      [ATTR.outputTokens]: 25,
      [ATTR.costUsd]: 0.75,
    });
    const check = only(spans, 'stage check');
    expect(check.status.code).toBe(SpanStatusCode.ERROR);
    expect(check.status.message).toBe('denied for key [REDACTED]');
    const runSpan = only(spans, 'run Usage');
    expect(runSpan.attributes[ATTR.runStatus]).toBe('fail');
    expect(JSON.stringify(spans.map((span) => [span.attributes, span.status]))).not.toContain(secret);
  });

  it('gives each attempt of a retried stage its own span', async () => {
    const handler = createScriptedHandler({ script: { flaky: ['fail', 'success'] } });
    const graph = createTestGraph({
      id: 'Retry',
      nodes: [{ id: 'flaky', maxRetries: 1 }],
      edges: ['start -> flaky -> exit'],
    });
    await run({ graph, registry: registryWith(handler), telemetry: { tracer } });
    const attempts = byName(await finishedSpans(), 'stage flaky').map((span) => span.attributes);
    expect(attempts).toEqual([
      expect.objectContaining({ [ATTR.stageAttempt]: 1, [ATTR.outcome]: 'fail', [ATTR.willRetry]: true }),
      expect.objectContaining({ [ATTR.stageAttempt]: 2, [ATTR.outcome]: 'success', [ATTR.willRetry]: false }),
    ]);
  });

  it('nests a child pipeline run under the stage that started it, and a run under the given parent', async () => {
    const childGraph = createTestGraph({ id: 'Child', edges: ['start -> c1 -> exit'] });
    const manager: Handler = {
      async execute({ runtime }) {
        const child = runtime.runChild({ graph: childGraph, name: 'child' });
        const result = await child.result;
        return { status: result.status === 'success' ? 'success' : 'fail' };
      },
    };
    const request = tracer.startSpan('request');
    await run({
      graph: createTestGraph({
        id: 'Parent',
        nodes: [{ id: 'boss', shape: 'house' }],
        edges: ['start -> boss -> exit'],
      }),
      registry: registryWith(createScriptedHandler(), { 'stack.manager_loop': manager }),
      telemetry: { tracer, parentContext: trace.setSpan(context.active(), request) },
    });
    request.end();
    const spans = await finishedSpans();
    expect(parentOf(only(spans, 'run Parent'))).toBe(request.spanContext().spanId);
    const childRun = only(spans, 'run Child');
    expect(parentOf(childRun)).toBe(only(spans, 'stage boss').spanContext().spanId);
    expect(parentOf(only(spans, 'stage c1'))).toBe(childRun.spanContext().spanId);
  });

  it('records stage durations, retries, LLM tokens and cost by model, and ended runs with a meter', async () => {
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const handler = createScriptedHandler({
      script: {
        flaky: ['fail', 'success'],
        draft: [
          ({ runtime }) => {
            runtime.emit({
              type: 'agent.usage',
              inputTokens: 10,
              outputTokens: 4,
              model: 'gpt-x',
              costUsd: 0.1,
            });
            return { status: 'success' };
          },
        ],
      },
    });
    const graph = createTestGraph({
      id: 'Metered',
      nodes: [{ id: 'flaky', maxRetries: 1 }],
      edges: ['start -> flaky -> draft -> exit'],
    });
    await run({
      graph,
      registry: registryWith(handler),
      telemetry: { meter: meterProvider.getMeter('test') },
    });
    const { resourceMetrics } = await reader.collect();
    const points = (name: string) => dataPoints(resourceMetrics, name);
    expect(await finishedSpans()).toEqual([]);
    const durations = points(TELEMETRY_METRICS.stageDuration) as DataPoint<Histogram>[];
    const flaky = durations.filter((point) => point.attributes[ATTR.node] === 'flaky');
    // One visit, its two attempts included.
    expect(flaky.map((point) => [point.attributes[ATTR.outcome], point.value.count])).toEqual([
      ['success', 1],
    ]);
    expect(flaky[0]?.attributes[ATTR.handlerType]).toBe('codergen');
    expect(points(TELEMETRY_METRICS.stageRetries)).toEqual([
      expect.objectContaining({ attributes: { [ATTR.pipeline]: 'Metered', [ATTR.node]: 'flaky' }, value: 1 }),
    ]);
    expect(
      points(TELEMETRY_METRICS.llmTokens).map((point) => [point.attributes[ATTR.tokenType], point.value]),
    ).toEqual(
      expect.arrayContaining([
        ['input', 10],
        ['output', 4],
      ]),
    );
    expect(points(TELEMETRY_METRICS.llmCost)).toEqual([
      expect.objectContaining({
        attributes: { [ATTR.pipeline]: 'Metered', [ATTR.model]: 'gpt-x' },
        value: 0.1,
      }),
    ]);
    expect(points(TELEMETRY_METRICS.runs)).toEqual([
      expect.objectContaining({
        attributes: { [ATTR.pipeline]: 'Metered', [ATTR.runStatus]: 'success' },
        value: 1,
      }),
    ]);
    await meterProvider.shutdown();
  });

  it('counts top-level runs by how they ended, suspensions a worker records included, not child pipelines', async () => {
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const record = createRunMetrics({ meter: meterProvider.getMeter('test') });
    const base = { seq: 1, timestamp: '2026-12-01T00:00:00.000Z' };
    record({
      ...base,
      type: 'pipeline.started',
      runId: 'r1',
      name: 'Gate',
      goal: '',
      logsRoot: '/r1',
      resumed: false,
      startNodeId: 'start',
    });
    record({
      ...base,
      type: 'pipeline.started',
      runId: 'c1',
      name: 'Child',
      goal: '',
      logsRoot: '/c1',
      resumed: false,
      startNodeId: 'start',
      branchPath: ['child:boss'],
    });
    record({
      ...base,
      type: 'pipeline.completed',
      runId: 'c1',
      durationMs: 5,
      artifactCount: 0,
      completedCount: 2,
      branchPath: ['child:boss'],
    });
    record({
      ...base,
      type: 'pipeline.suspended',
      runId: 'r1',
      stage: 'ask',
      question: { id: 'ask:1:1', stage: 'ask', text: 'Ship it?', type: 'yes_no', options: [] },
      durationMs: 10,
    });
    const { resourceMetrics } = await reader.collect();
    expect(dataPoints(resourceMetrics, TELEMETRY_METRICS.runs)).toEqual([
      expect.objectContaining({
        attributes: { [ATTR.pipeline]: 'Gate', [ATTR.runStatus]: 'suspended' },
        value: 1,
      }),
    ]);
    await meterProvider.shutdown();
  });

  it('gives handlers no telemetry when the run has none', async () => {
    const handler = createScriptedHandler();
    await run({
      graph: createTestGraph({ edges: ['start -> work -> exit'] }),
      registry: registryWith(handler),
    });
    expect(handler.calls.find((call) => call.nodeId === 'work')?.runtime.telemetry).toBeUndefined();
    expect(await finishedSpans()).toEqual([]);
  });
});

function dataPoints(resourceMetrics: ResourceMetrics, name: string): DataPoint<unknown>[] {
  return resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === name)
    .flatMap((metric) => metric.dataPoints as DataPoint<unknown>[]);
}
