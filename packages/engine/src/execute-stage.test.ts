import { describe, expect, it } from 'vitest';
import { registryWith, run, tempDir } from '../test/helpers.js';
import type { Handler } from './handler.js';
import type { StageFailedEvent, StageRetryingEvent } from './pipeline-event.js';
import { runPipeline, startPipeline } from './run-pipeline.js';
import { createTestGraph } from './test/graph-builder.js';
import { createScriptedHandler } from './test/scripted-handler.js';
import { createTestClock } from './test/test-clock.js';

const flakyGraph = (maxRetries: number, extra: Partial<{ allowPartial: boolean }> = {}) =>
  createTestGraph({
    nodes: [{ id: 'flaky', maxRetries, ...extra }],
    edges: [
      'start -> flaky',
      { from: 'flaky', to: 'exit', condition: 'outcome=success' },
      { from: 'flaky', to: 'exit', condition: 'outcome=partial_success' },
      { from: 'flaky', to: 'recover', condition: 'outcome=fail' },
      'recover -> exit',
    ],
  });

describe('retries (spec §11.5, docs/architecture.md "Retrying FAIL")', () => {
  it('retries a node with max_retries > 0 on FAIL', async () => {
    const handler = createScriptedHandler({ script: { flaky: ['fail', 'fail', 'success'] } });
    const { result } = await run({ graph: flakyGraph(2), registry: registryWith(handler) });
    expect(handler.calls.filter((call) => call.nodeId === 'flaky').map((call) => call.attempt)).toEqual([
      1, 2, 3,
    ]);
    expect(result.completedNodes).toEqual(['start', 'flaky', 'exit']);
  });

  it('retries a node with max_retries > 0 on RETRY', async () => {
    const handler = createScriptedHandler({ script: { flaky: ['retry', 'success'] } });
    const { result } = await run({ graph: flakyGraph(1), registry: registryWith(handler) });
    expect(handler.nodeIds()).toEqual(['flaky', 'flaky']);
    expect(result.nodeOutcomes.flaky?.status).toBe('success');
  });

  it('tracks the retry count per node and respects the limit (max_retries=2 → 3 executions)', async () => {
    const handler = createScriptedHandler({ script: { flaky: ['fail'] } });
    const { result, events } = await run({ graph: flakyGraph(2), registry: registryWith(handler) });
    expect(handler.nodeIds().filter((id) => id === 'flaky')).toHaveLength(3);
    expect(handler.calls[2]!.context['internal.retry_count.flaky']).toBe(2);
    const failed = events.filter((event): event is StageFailedEvent => event.type === 'stage.failed');
    expect(failed.map((event) => event.willRetry)).toEqual([true, true, false]);
    expect(result.completedNodes).toEqual(['start', 'flaky', 'recover', 'exit']);
  });

  it('waits the backoff between attempts on the injected clock', async () => {
    const clock = createTestClock();
    const handler = createScriptedHandler({ script: { flaky: ['fail', 'fail', 'fail', 'success'] } });
    const { events } = await run({
      graph: flakyGraph(3),
      registry: registryWith(handler),
      clock,
      random: () => 0.5,
    });
    expect(clock.sleeps).toEqual([200, 400, 800]);
    expect(
      events.find((event) => event.type === 'stage.completed' && event.nodeId === 'flaky'),
    ).toMatchObject({ attempt: 4 });
    const retrying = events.filter((event): event is StageRetryingEvent => event.type === 'stage.retrying');
    expect(retrying.map((event) => [event.attempt, event.delayMs])).toEqual([
      [1, 200],
      [2, 400],
      [3, 800],
    ]);
  });

  it('applies jitter to the backoff when configured', async () => {
    const clock = createTestClock();
    const values = [0, 0.999];
    const handler = createScriptedHandler({ script: { flaky: ['fail', 'fail', 'success'] } });
    await run({
      graph: flakyGraph(2),
      registry: registryWith(handler),
      clock,
      random: () => values.shift() ?? 0.5,
    });
    expect(clock.sleeps).toEqual([100, 600]);
  });

  it('uses the final outcome after exhaustion for edge selection', async () => {
    const handler = createScriptedHandler({
      script: { flaky: [{ status: 'fail', failureReason: 'still broken' }] },
    });
    const { result } = await run({ graph: flakyGraph(1), registry: registryWith(handler) });
    expect(result.nodeOutcomes.flaky).toEqual({ status: 'fail', failureReason: 'still broken' });
    expect(result.completedNodes).toEqual(['start', 'flaky', 'recover', 'exit']);
  });

  it('turns exhausted RETRY into FAIL "max retries exceeded"', async () => {
    const handler = createScriptedHandler({
      script: { flaky: [{ status: 'retry', failureReason: 'busy' }] },
    });
    const { result } = await run({ graph: flakyGraph(1), registry: registryWith(handler) });
    expect(result.nodeOutcomes.flaky).toEqual({
      status: 'fail',
      failureReason: 'max retries exceeded: busy',
    });
  });

  it('accepts PARTIAL_SUCCESS on exhaustion with allow_partial', async () => {
    const handler = createScriptedHandler({ script: { flaky: ['retry'] } });
    const { result } = await run({
      graph: flakyGraph(1, { allowPartial: true }),
      registry: registryWith(handler),
    });
    expect(result.nodeOutcomes.flaky).toEqual({
      status: 'partial_success',
      notes: 'retries exhausted, partial accepted',
    });
    expect(result.completedNodes.at(-1)).toBe('exit');
  });

  it('fails at once on a FAIL marked not retryable', async () => {
    const handler = createScriptedHandler({
      script: { flaky: [{ status: 'fail', failureReason: '401', retryable: false }] },
    });
    await run({ graph: flakyGraph(3), registry: registryWith(handler) });
    expect(handler.nodeIds()).toEqual(['flaky', 'recover']);
  });

  it('fails at once on an error with retryable: false, retries one with retryable: true', async () => {
    const fatal = createScriptedHandler({ script: { flaky: [{ throw: 'auth', retryable: false }] } });
    await run({ graph: flakyGraph(3), registry: registryWith(fatal) });
    expect(fatal.nodeIds()).toEqual(['flaky', 'recover']);
    const transient = createScriptedHandler({
      script: { flaky: [{ throw: 'rate limited', retryable: true }, 'success'] },
    });
    await run({ graph: flakyGraph(3), registry: registryWith(transient) });
    expect(transient.nodeIds()).toEqual(['flaky', 'flaky']);
  });

  it('does not retry SUCCESS, PARTIAL_SUCCESS or a custom outcome', async () => {
    for (const status of ['success', 'partial_success', 'done']) {
      const handler = createScriptedHandler({ script: { flaky: [status] } });
      const graph = createTestGraph({
        nodes: [{ id: 'flaky', maxRetries: 3 }],
        edges: ['start -> flaky -> exit'],
      });
      await run({ graph, registry: registryWith(handler) });
      expect(handler.nodeIds()).toEqual(['flaky']);
    }
  });
});

describe('node timeout (docs/architecture.md "Cancellation and time")', () => {
  it('aborts the handler and fails the attempt with "timeout after <d>"', async () => {
    const clock = createTestClock({ autoAdvance: false });
    let aborted = false;
    const slow: Handler = {
      execute: ({ runtime }) =>
        new Promise((resolve) => {
          runtime.abortSignal.addEventListener('abort', () => {
            aborted = true;
            resolve({ status: 'success' });
          });
        }),
    };
    const graph = createTestGraph({
      nodes: [{ id: 'slow', timeoutMs: 30_000 }],
      edges: ['start -> slow -> exit'],
    });
    const pending = runPipeline({ graph, registry: registryWith(slow), logsRoot: tempDir(), clock });
    while (clock.pendingSleeps() === 0) await new Promise((resolve) => setImmediate(resolve));
    await clock.advance(30_000);
    const result = await pending;
    expect(aborted).toBe(true);
    expect(result.nodeOutcomes.slow).toEqual({ status: 'fail', failureReason: 'timeout after 30s' });
  });

  it('does not apply the node timeout to a wait.human handler (the interview timeout applies)', async () => {
    const clock = createTestClock();
    const human: Handler = {
      execute: async ({ runtime }) => {
        await runtime.clock.sleep(60_000);
        return { status: 'success' };
      },
    };
    const graph = createTestGraph({
      nodes: [{ id: 'gate', shape: 'hexagon', timeoutMs: 1000 }],
      edges: ['start -> gate -> exit'],
    });
    const { result } = await run({
      graph,
      registry: registryWith(createScriptedHandler(), { 'wait.human': human }),
      clock,
    });
    expect(result.nodeOutcomes.gate?.status).toBe('success');
  });
});

describe('cancellation (docs/architecture.md "Cancellation and time")', () => {
  it('stops the walk, does not record the running node, and keeps the last checkpoint', async () => {
    const controller = new AbortController();
    const blocking: Handler = {
      execute: ({ node, runtime }) => {
        if (node.id === 'a') return Promise.resolve({ status: 'success' });
        setImmediate(() => controller.abort(new Error('user pressed Ctrl-C')));
        return new Promise((_, reject) =>
          runtime.abortSignal.addEventListener('abort', () => reject(runtime.abortSignal.reason)),
        );
      },
    };
    const graph = createTestGraph({ edges: ['start -> a -> b -> exit'] });
    const logsRoot = tempDir();
    const run = startPipeline({
      graph,
      registry: registryWith(blocking),
      logsRoot,
      abortSignal: controller.signal,
      clock: createTestClock(),
    });
    const result = await run.result;
    expect(result.status).toBe('cancelled');
    expect(result.failureReason).toBe('user pressed Ctrl-C');
    expect(result.completedNodes).toEqual(['start', 'a']);
    const { readJson } = await import('../test/helpers.js');
    const checkpoint = readJson<{ next_node: string; state: string }>(`${logsRoot}/checkpoint.json`);
    expect(checkpoint).toMatchObject({ next_node: 'b', state: 'running' });
  });

  it('aborts the signal of each attempt once the attempt is over, and leaves no listener on the run signal', async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const handler: Handler = {
      execute: async ({ runtime }) => {
        signals.push(runtime.abortSignal);
        expect(runtime.abortSignal.aborted).toBe(false);
        return { status: 'success' };
      },
    };
    const graph = createTestGraph({ edges: ['start -> a -> b -> exit'] });
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners += 1;
      add(...args);
    }) as typeof add;
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners -= 1;
      remove(...args);
    }) as typeof remove;
    const { result } = await run({
      graph,
      registry: registryWith(handler, { start: handler, exit: handler }),
      abortSignal: controller.signal,
    });
    expect(result.status).toBe('success');
    expect(signals).toHaveLength(4);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect((signals[0]!.reason as Error).message).toBe('stage attempt finished');
    expect(listeners).toBe(0);
  });

  it('cancel() on the run handle stops it even when the handler ignores its signal', async () => {
    const stubborn: Handler = { execute: () => new Promise(() => undefined) };
    const graph = createTestGraph({ edges: ['start -> a -> exit'] });
    const run = startPipeline({
      graph,
      registry: registryWith(stubborn),
      logsRoot: tempDir(),
      clock: createTestClock(),
    });
    run.events.on('stage.started', (event) => {
      if (event.nodeId === 'a') run.cancel('stop now');
    });
    const result = await run.result;
    expect(result.status).toBe('cancelled');
    expect(result.failureReason).toBe('stop now');
  });
});
