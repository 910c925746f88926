/**
 * Retry policy and backoff, spec §3.5–3.6 and docs/architecture.md "Retrying FAIL".
 */
import type { Graph, GraphNode } from '@attractor/graph';

/** Backoff between attempts (spec §3.6 `BackoffConfig`). */
export interface BackoffConfig {
  /** Delay before the first retry, in milliseconds. Default: 200. */
  readonly initialDelayMs: number;
  /** Multiplier for each later retry. Default: 2. */
  readonly backoffFactor: number;
  /** Cap on a single delay, in milliseconds. Default: 60000. */
  readonly maxDelayMs: number;
  /** Multiply each delay by a uniform random factor in [0.5, 1.5). Default: true. */
  readonly jitter: boolean;
}

/** A node's retry policy (spec §3.6 `RetryPolicy`). */
export interface RetryPolicy {
  /** Total executions allowed per visit: `max_retries + 1`, at least 1. */
  readonly maxAttempts: number;
  readonly backoff: BackoffConfig;
}

/** The names of the preset policies of spec §3.6. */
export type RetryPresetName = 'none' | 'standard' | 'aggressive' | 'linear' | 'patient';

/** The default backoff (spec §3.6): 200 ms, ×2, capped at 60 s, with jitter. */
export const DEFAULT_BACKOFF: BackoffConfig = {
  initialDelayMs: 200,
  backoffFactor: 2,
  maxDelayMs: 60_000,
  jitter: true,
};

/** The preset policies of spec §3.6, selectable per node with the `retry_policy` attribute. */
export const RETRY_PRESETS = {
  none: { maxAttempts: 1, backoff: DEFAULT_BACKOFF },
  standard: { maxAttempts: 5, backoff: { ...DEFAULT_BACKOFF, initialDelayMs: 200, backoffFactor: 2 } },
  aggressive: { maxAttempts: 5, backoff: { ...DEFAULT_BACKOFF, initialDelayMs: 500, backoffFactor: 2 } },
  linear: { maxAttempts: 3, backoff: { ...DEFAULT_BACKOFF, initialDelayMs: 500, backoffFactor: 1 } },
  patient: { maxAttempts: 3, backoff: { ...DEFAULT_BACKOFF, initialDelayMs: 2000, backoffFactor: 3 } },
} as const satisfies Record<RetryPresetName, RetryPolicy>;

/** Options of {@link retryDelayMs}. */
export interface RetryDelayOptions {
  /** The retry number, from 1 (the first retry). */
  readonly attempt: number;
  readonly backoff?: BackoffConfig;
  /** Uniform random number in [0, 1), used only when `backoff.jitter` is on. Default: 0.5 (no change). */
  readonly random?: () => number;
}

/**
 * The delay before retry number `attempt`, in milliseconds (spec §3.6 `delay_for_attempt`):
 * `min(initialDelayMs × backoffFactor^(attempt−1), maxDelayMs)`, times `0.5 + random()` when jitter is on.
 *
 * @example
 * retryDelayMs({ attempt: 3, backoff: { ...DEFAULT_BACKOFF, jitter: false } }); // 800
 */
export function retryDelayMs(options: RetryDelayOptions): number {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const exponent = Math.max(0, options.attempt - 1);
  let delay = Math.min(backoff.initialDelayMs * backoff.backoffFactor ** exponent, backoff.maxDelayMs);
  if (backoff.jitter) delay *= 0.5 + (options.random ?? (() => 0.5))();
  return Math.round(delay);
}

/**
 * The retry policy of a node (spec §3.5): attempts from `max_retries`, else graph `default_max_retries`
 * (the graph layer maps the legacy `default_max_retry`), else the `retry_policy` preset's attempts, else 1.
 * Backoff from the node's `retry_policy` preset (raw attribute), else the default.
 */
export function buildRetryPolicy(node: GraphNode, graph: Graph): RetryPolicy {
  const presetName = node.attributes.retry_policy?.value.trim();
  const preset =
    presetName !== undefined && presetName in RETRY_PRESETS
      ? RETRY_PRESETS[presetName as RetryPresetName]
      : undefined;
  const explicitGraphDefault = graph.attributes.default_max_retries ?? graph.attributes.default_max_retry;
  const retries =
    node.maxRetries ??
    (explicitGraphDefault !== undefined || preset === undefined
      ? graph.settings.defaultMaxRetries
      : preset.maxAttempts - 1);
  return {
    maxAttempts: Math.max(1, Math.floor(retries) + 1),
    backoff: preset?.backoff ?? DEFAULT_BACKOFF,
  };
}
