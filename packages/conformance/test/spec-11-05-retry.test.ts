/** Spec §11.5 Retry Logic: one test per checkbox, through runPipeline with an injected clock and random source. */
import type { PipelineEvent } from '@attractor/engine';
import { retryDelayMs } from '@attractor/engine';
import { createTestClock } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { runDot } from './support/run-dot.js';
import { scriptedRegistry } from './support/scripted.js';

function retryDelays(events: readonly PipelineEvent[]): number[] {
  return events.flatMap((event) => (event.type === 'stage.retrying' ? [event.delayMs] : []));
}

describe('§11.5 Retry Logic', () => {
  it('Nodes with `max_retries > 0` are retried on RETRY or FAIL outcomes [docs/architecture.md "Retrying FAIL": we follow §11.5, not the §3.5 pseudocode]', async () => {
    const { registry, handler } = scriptedRegistry({ flaky: ['retry', 'fail', 'success'] });
    const { result } = await runDot(
      'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; flaky [prompt="f", max_retries=2]; start -> flaky -> exit }',
      { registry },
    );
    expect(result.status).toBe('success');
    expect(handler.calls.map((call) => call.attempt)).toEqual([1, 2, 3]);
    // A failure marked not retryable (e.g. an auth error) fails at once.
    const fatal = scriptedRegistry({
      flaky: [{ status: 'fail', failureReason: 'HTTP 401', retryable: false }],
    });
    const run = await runDot(
      'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; flaky [prompt="f", max_retries=2]; start -> flaky -> exit }',
      { registry: fatal.registry },
    );
    expect(run.result.status).toBe('fail');
    expect(fatal.handler.calls).toHaveLength(1);
  });

  it('Retry count is tracked per-node and respects the configured limit', async () => {
    const { registry, handler } = scriptedRegistry({
      a: ['fail', 'fail', 'fail', 'fail', 'fail'],
      b: ['retry', 'retry', 'success'],
    });
    const { result } = await runDot(
      `digraph G {
        graph [default_max_retries=3]
        start [shape=Mdiamond]; exit [shape=Msquare]
        b [prompt="b"]; a [prompt="a", max_retries=1]
        start -> b -> a -> exit
      }`,
      { registry },
    );
    // b uses the graph default (3 retries) and needs 2; a has its own limit of 1 retry: 2 attempts in all.
    expect(handler.nodeIds()).toEqual(['b', 'b', 'b', 'a', 'a']);
    expect(result.status).toBe('fail');
  });

  it('Backoff between retries works (constant, linear, or exponential as configured)', async () => {
    const run = async (policy: string) => {
      const { registry } = scriptedRegistry({ n: ['fail', 'fail', 'fail', 'success'] });
      const clock = createTestClock();
      const { events } = await runDot(
        `digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; n [prompt="n", max_retries=3, retry_policy=${policy}]; start -> n -> exit }`,
        // random 0.5 makes the jitter factor exactly 1 (0.5 + 0.5).
        { registry, clock, random: () => 0.5 },
      );
      expect(clock.sleeps).toEqual(retryDelays(events));
      return clock.sleeps;
    };
    // Spec §3.6 presets: `linear` is the fixed delay (factor 1.0), the others grow exponentially.
    expect(await run('linear')).toEqual([500, 500, 500]);
    expect(await run('standard')).toEqual([200, 400, 800]);
    expect(await run('aggressive')).toEqual([500, 1000, 2000]);
    expect(await run('patient')).toEqual([2000, 6000, 18000]);
    // The cap of the delay calculation.
    expect(
      retryDelayMs({
        attempt: 20,
        backoff: { initialDelayMs: 200, backoffFactor: 2, maxDelayMs: 60_000, jitter: false },
      }),
    ).toBe(60_000);
  });

  it('Jitter is applied to backoff delays when configured', async () => {
    const delays = async (random: number) => {
      const { registry } = scriptedRegistry({ n: ['fail', 'fail', 'success'] });
      const clock = createTestClock();
      await runDot(
        'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; n [prompt="n", max_retries=2]; start -> n -> exit }',
        { registry, clock, random: () => random },
      );
      return clock.sleeps;
    };
    // Default backoff: 200 ms x 2^(n-1), jitter factor uniform in [0.5, 1.5).
    expect(await delays(0)).toEqual([100, 200]);
    expect(await delays(0.5)).toEqual([200, 400]);
    expect(await delays(0.99)).toEqual([298, 596]);
    expect(
      retryDelayMs({
        attempt: 2,
        random: () => 0,
        backoff: { initialDelayMs: 200, backoffFactor: 2, maxDelayMs: 60_000, jitter: false },
      }),
    ).toBe(400);
  });

  it("After retry exhaustion, the node's final outcome is used for edge selection", async () => {
    const { registry, handler } = scriptedRegistry({
      work: [
        { status: 'retry', failureReason: 'not yet' },
        { status: 'fail', failureReason: 'gave up' },
      ],
    });
    const { result } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        work [prompt="w", max_retries=1]; recover [prompt="r"]
        start -> work
        work -> exit [condition="outcome=success"]
        work -> recover [condition="outcome=fail"]
        recover -> exit
      }`,
      { registry },
    );
    expect(handler.nodeIds()).toEqual(['work', 'work', 'recover']);
    expect(result.nodeOutcomes.work).toMatchObject({ status: 'fail', failureReason: 'gave up' });
    expect(result.status).toBe('success');
  });
});
