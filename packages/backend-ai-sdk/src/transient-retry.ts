/**
 * Retries of transient provider errors inside the backend (coding-agent-loop-spec "error handling", spec §3.6,
 * docs/architecture.md "The AI-SDK backend"): HTTP 408, 429, 500-504, Anthropic's 529 and network failures
 * are retried per model call with exponential backoff and jitter, honouring `retry-after-ms` / `retry-after`.
 * They never use a node's `max_retries`. The policy and the delay are pure; {@link
 * createTransientRetryMiddleware} applies them around each provider call as an AI SDK language-model
 * middleware.
 */
import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import type { Clock } from '@attractor/engine';
import { APICallError } from 'ai';

/** How transient errors are retried. */
export interface TransientRetryPolicy {
  /** Calls at most, the first included. Default: 6. */
  readonly maxAttempts: number;
  /** Time spent waiting and calling before giving up, in milliseconds. Default: 300000 (5 minutes). */
  readonly maxElapsedMs: number;
  /** Delay before the second attempt, in milliseconds. Default: 1000. */
  readonly initialDelayMs: number;
  /** Factor between consecutive delays. Default: 2. */
  readonly backoffFactor: number;
  /** Largest backoff delay (not applied to a server's `retry-after`), in milliseconds. Default: 60000. */
  readonly maxDelayMs: number;
}

/** The default {@link TransientRetryPolicy}: 6 attempts within 5 minutes, 1 s doubling up to 60 s. */
export const DEFAULT_TRANSIENT_RETRY_POLICY: TransientRetryPolicy = {
  maxAttempts: 6,
  maxElapsedMs: 300_000,
  initialDelayMs: 1_000,
  backoffFactor: 2,
  maxDelayMs: 60_000,
};

/** HTTP statuses that are retried: timeouts, rate limits, server errors and Anthropic's "overloaded". */
export const TRANSIENT_STATUS_CODES: ReadonlySet<number> = new Set([408, 429, 500, 501, 502, 503, 504, 529]);

/** Why a call failed transiently, or undefined when the error is not transient. */
export interface TransientFailure {
  /** The HTTP status; undefined for a network failure (reset, refused, timeout). */
  readonly statusCode?: number;
  /** The server's wait request from `retry-after-ms` / `retry-after`, in milliseconds. */
  readonly retryAfterMs?: number;
  readonly message: string;
}

/**
 * The wait a response asks for: `retry-after-ms` (milliseconds), else `retry-after` (seconds or an HTTP date,
 * relative to `nowMs`). Undefined when absent, unparsable or negative. Pure.
 */
export function retryAfterMs(
  headers: Readonly<Record<string, string>> | undefined,
  nowMs: number,
): number | undefined {
  if (headers === undefined) return undefined;
  const lower = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const milliseconds = Number.parseFloat(lower['retry-after-ms'] ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const raw = lower['retry-after'];
  if (raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw.trim());
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Classifies an error thrown by a provider call. Pure. */
export function transientFailure(error: unknown, nowMs: number): TransientFailure | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  const status = error.statusCode;
  if (status !== undefined && !TRANSIENT_STATUS_CODES.has(status)) return undefined;
  if (status === undefined && !error.isRetryable) return undefined;
  const wait = retryAfterMs(error.responseHeaders, nowMs);
  return {
    ...(status === undefined ? {} : { statusCode: status }),
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
    message: error.message,
  };
}

/**
 * The wait before attempt `attempt + 1` after a transient failure of attempt `attempt` (1-based): the server's
 * `retry-after` when it gave one, else `initialDelayMs * backoffFactor^(attempt-1)` capped at `maxDelayMs`, scaled
 * by a jitter factor in [0.5, 1) from `random`. Pure.
 */
export function transientRetryDelayMs(options: {
  readonly attempt: number;
  readonly failure: TransientFailure;
  readonly policy: TransientRetryPolicy;
  readonly random: () => number;
}): number {
  const { policy } = options;
  if (options.failure.retryAfterMs !== undefined) return Math.ceil(options.failure.retryAfterMs);
  const exponential = Math.min(
    policy.maxDelayMs,
    policy.initialDelayMs * policy.backoffFactor ** (options.attempt - 1),
  );
  return Math.round(exponential * (0.5 + options.random() * 0.5));
}

/** One wait before a retry, as reported to {@link TransientRetryMiddlewareOptions.onWait}. */
export interface TransientRetryWait {
  /** The attempt that failed (1-based) and the one that follows the wait. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** The wait, in milliseconds. */
  readonly delayMs: number;
  /** Whether the wait is the server's `retry-after`. */
  readonly fromRetryAfter: boolean;
  readonly failure: TransientFailure;
}

/** Options of {@link createTransientRetryMiddleware}. */
export interface TransientRetryMiddlewareOptions {
  readonly policy: TransientRetryPolicy;
  readonly clock: Clock;
  /** Jitter source in [0, 1). */
  readonly random: () => number;
  /** Called before each wait (the backend emits an event and a log line). */
  readonly onWait: (wait: TransientRetryWait) => void;
}

/**
 * An AI SDK language-model middleware that retries each provider call (`doGenerate`, and `doStream` until the
 * stream is open) after a transient failure, waiting on the injected clock with the call's abort signal. Gives
 * up, rethrowing the last error, after `maxAttempts` calls or when the next wait would pass `maxElapsedMs`.
 */
export function createTransientRetryMiddleware(
  options: TransientRetryMiddlewareOptions,
): LanguageModelV4Middleware {
  const { policy, clock } = options;
  async function withRetries<TResult>(
    call: () => PromiseLike<TResult>,
    signal: AbortSignal | undefined,
  ): Promise<TResult> {
    const startedMs = clock.now();
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await call();
      } catch (error) {
        if (signal?.aborted === true || attempt >= policy.maxAttempts) throw error;
        const failure = transientFailure(error, clock.now());
        if (failure === undefined) throw error;
        const delayMs = transientRetryDelayMs({ attempt, failure, policy, random: options.random });
        if (clock.now() - startedMs + delayMs > policy.maxElapsedMs) throw error;
        options.onWait({
          attempt,
          maxAttempts: policy.maxAttempts,
          delayMs,
          fromRetryAfter: failure.retryAfterMs !== undefined,
          failure,
        });
        await clock.sleep(delayMs, signal);
      }
    }
  }
  return {
    specificationVersion: 'v4',
    wrapGenerate: ({ doGenerate, params }) => withRetries(doGenerate, params.abortSignal),
    wrapStream: ({ doStream, params }) => withRetries(doStream, params.abortSignal),
  };
}
