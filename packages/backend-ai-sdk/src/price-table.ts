/**
 * What model calls cost: a price table in USD per million tokens with defaults for well-known models, and the
 * cost of a stage's token usage. A model the table does not know costs `'unknown'`, never 0. Pure.
 */
import { z } from 'zod';

/** Prices of one model, in USD per million tokens. */
export interface ModelPrice {
  /** Input tokens not read from a cache. */
  readonly input: number;
  /** Output tokens (reasoning tokens included, as providers bill them). */
  readonly output: number;
  /** Input tokens read from the prompt cache. Default: `input`. */
  readonly cachedInput?: number;
  /** Input tokens written to the prompt cache (Anthropic). Default: `input`. */
  readonly cacheWrite?: number;
}

/** Model id → price. A key also prices dated or suffixed ids (`claude-sonnet-4-5` prices `claude-sonnet-4-5-20250929`). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Default prices (USD per million tokens, standard tier, short context) as the providers published them in 2026.
 * Override or extend with the backend's `prices` option (CLI `--prices file.json`).
 */
export const DEFAULT_PRICES: PriceTable = {
  'claude-opus-4-6': { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-5': { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4-6': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cachedInput: 0.1, cacheWrite: 1.25 },
  'gpt-5.4': { input: 2.5, output: 15, cachedInput: 0.25 },
  'gpt-5.4-mini': { input: 0.75, output: 4.5, cachedInput: 0.075 },
  'gpt-5.4-nano': { input: 0.2, output: 1.25, cachedInput: 0.02 },
  'gpt-5.2': { input: 1.75, output: 14, cachedInput: 0.175 },
  'gpt-5.1': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  'gemini-3-flash-preview': { input: 0.5, output: 3, cachedInput: 0.05 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.03 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cachedInput: 0.01 },
};

const modelPriceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cachedInput: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});

/** The schema of a price file: `{ "<model id>": { "input": 3, "output": 15, "cachedInput": 0.3 } }`. */
export const priceTableSchema = z.record(z.string().min(1), modelPriceSchema);

/**
 * Validates a parsed price file. Returns the table, or the problems (`"gpt-x.output: expected number"`), one per
 * line, for the caller to report with the file's path.
 */
export function parsePriceTable(
  value: unknown,
): { readonly ok: true; readonly table: PriceTable } | { readonly ok: false; readonly problems: string } {
  const parsed = priceTableSchema.safeParse(value);
  if (parsed.success) return { ok: true, table: parsed.data };
  const problems = parsed.error.issues
    .map((issue) => `${issue.path.map(String).join('.') || '(top level)'}: ${issue.message}`)
    .join('\n');
  return { ok: false, problems };
}

/** `claude-opus-4.6` and `anthropic/claude-opus-4-6` both name `claude-opus-4-6`. */
function normalizeModelId(modelId: string): string {
  const id = modelId.toLowerCase().replace(/^[a-z0-9-]+\//, '');
  return id.startsWith('claude-') ? id.replace(/(\d)\.(\d)/g, '$1-$2') : id;
}

/** The price of a model: an exact key, else the longest key the id starts with followed by `-`. */
export function priceOf(table: PriceTable, modelId: string): ModelPrice | undefined {
  const id = normalizeModelId(modelId);
  const exact = table[id] ?? table[modelId];
  if (exact !== undefined) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (id.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/** Token counts of one or more model calls. */
export interface TokenUsage {
  /** All input tokens, cached ones included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the prompt cache (part of `inputTokens`). */
  readonly cachedInputTokens: number;
  /** Input tokens written to the prompt cache (part of `inputTokens`). */
  readonly cacheWriteTokens: number;
  /** Reasoning tokens (part of `outputTokens`). */
  readonly reasoningTokens: number;
  readonly totalTokens: number;
}

/** The cost of `usage` in USD, or `'unknown'` when the table has no price for the model. */
export function costUsd(table: PriceTable, modelId: string, usage: TokenUsage): number | 'unknown' {
  const price = priceOf(table, modelId);
  if (price === undefined) return 'unknown';
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens);
  const micro =
    uncached * price.input +
    usage.cachedInputTokens * (price.cachedInput ?? price.input) +
    usage.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return micro / 1_000_000;
}
