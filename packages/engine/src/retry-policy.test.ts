import { describe, expect, it } from 'vitest';
import { buildRetryPolicy, DEFAULT_BACKOFF, RETRY_PRESETS, retryDelayMs } from './retry-policy.js';
import { createTestGraph } from './test/graph-builder.js';

const noJitter = { ...DEFAULT_BACKOFF, jitter: false };

describe('retryDelayMs (spec §3.6)', () => {
  it('grows exponentially from the initial delay', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs({ attempt, backoff: noJitter }))).toEqual([
      200, 400, 800, 1600, 3200,
    ]);
  });

  it('caps each delay at maxDelayMs', () => {
    expect(retryDelayMs({ attempt: 20, backoff: noJitter })).toBe(60_000);
  });

  it.each([
    ['standard', [200, 400, 800, 1600, 3200]],
    ['aggressive', [500, 1000, 2000, 4000, 8000]],
    ['linear', [500, 500, 500]],
    ['patient', [2000, 6000, 18000]],
  ] as const)('gives the documented delays for the %s preset', (name, delays) => {
    const backoff = { ...RETRY_PRESETS[name].backoff, jitter: false };
    expect(delays.map((_, index) => retryDelayMs({ attempt: index + 1, backoff }))).toEqual(delays);
  });

  it('keeps jitter within 0.5x–1.5x of the base delay', () => {
    expect(retryDelayMs({ attempt: 2, random: () => 0 })).toBe(200);
    expect(retryDelayMs({ attempt: 2, random: () => 0.999_999 })).toBe(600);
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return (seed - 1) / 2147483646;
    };
    for (let index = 0; index < 500; index++) {
      const delay = retryDelayMs({ attempt: 3, random });
      expect(delay).toBeGreaterThanOrEqual(400);
      expect(delay).toBeLessThanOrEqual(1200);
    }
  });
});

describe('buildRetryPolicy (spec §3.5)', () => {
  it('uses max_retries + 1 attempts', () => {
    const graph = createTestGraph({ nodes: [{ id: 'a', maxRetries: 3 }], edges: ['start -> a -> exit'] });
    expect(buildRetryPolicy(graph.node('a')!, graph).maxAttempts).toBe(4);
  });

  it('inherits the graph default_max_retries when the node has none', () => {
    const graph = createTestGraph({ settings: { defaultMaxRetries: 2 }, edges: ['start -> a -> exit'] });
    expect(buildRetryPolicy(graph.node('a')!, graph).maxAttempts).toBe(3);
  });

  it('defaults to a single attempt', () => {
    const graph = createTestGraph({ edges: ['start -> a -> exit'] });
    expect(buildRetryPolicy(graph.node('a')!, graph).maxAttempts).toBe(1);
  });

  it('takes backoff and attempts from a retry_policy preset', () => {
    const graph = createTestGraph({
      nodes: [{ id: 'a', attrs: { retry_policy: 'linear' } }],
      edges: ['start -> a'],
    });
    const policy = buildRetryPolicy(graph.node('a')!, graph);
    expect(policy.maxAttempts).toBe(3);
    expect(policy.backoff.backoffFactor).toBe(1);
  });
});
