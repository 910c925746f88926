import { describe, expect, it } from 'vitest';
import { costUsd, DEFAULT_PRICES, parsePriceTable, priceOf } from './price-table.js';

const usage = {
  inputTokens: 1_000_000,
  outputTokens: 100_000,
  cachedInputTokens: 200_000,
  cacheWriteTokens: 0,
  reasoningTokens: 50_000,
  totalTokens: 1_100_000,
};

describe('price table', () => {
  it('prices dated and dotted model ids by their family', () => {
    expect(priceOf(DEFAULT_PRICES, 'claude-sonnet-4-5-20250929')).toBe(DEFAULT_PRICES['claude-sonnet-4-5']);
    expect(priceOf(DEFAULT_PRICES, 'claude-opus-4.6')).toBe(DEFAULT_PRICES['claude-opus-4-6']);
    expect(priceOf(DEFAULT_PRICES, 'gpt-5.4-nano')).toBe(DEFAULT_PRICES['gpt-5.4-nano']);
  });

  it('costs uncached input, cached input and output at their prices, in USD', () => {
    // 800k × $3 + 200k × $0.30 + 100k × $15, per million tokens.
    expect(costUsd(DEFAULT_PRICES, 'claude-sonnet-4-6', usage)).toBeCloseTo(2.4 + 0.06 + 1.5, 10);
  });

  it('says "unknown" for a model without a price, never 0', () => {
    expect(costUsd(DEFAULT_PRICES, 'qwen2.5-coder', usage)).toBe('unknown');
    expect(costUsd(DEFAULT_PRICES, 'gpt-5.3-codex', usage)).toBe('unknown');
  });

  it('validates a price file and reports each problem with its path', () => {
    expect(parsePriceTable({ 'my-model': { input: 1, output: 2 } })).toEqual({
      ok: true,
      table: { 'my-model': { input: 1, output: 2 } },
    });
    const bad = parsePriceTable({ 'my-model': { input: 'cheap', output: 2, extra: 1 } });
    expect(bad.ok).toBe(false);
    expect(bad.ok === false && bad.problems).toContain('my-model.input');
  });
});
