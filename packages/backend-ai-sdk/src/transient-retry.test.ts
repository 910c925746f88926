import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TRANSIENT_RETRY_POLICY,
  retryAfterMs,
  transientFailure,
  transientRetryDelayMs,
} from './transient-retry.js';

function apiError(statusCode: number | undefined, headers: Record<string, string> = {}): APICallError {
  return new APICallError({
    message: `HTTP ${statusCode ?? 'none'}`,
    url: 'http://127.0.0.1/v1/messages',
    requestBodyValues: {},
    ...(statusCode === undefined ? { isRetryable: true } : { statusCode }),
    responseHeaders: headers,
  });
}

describe('retryAfterMs (coding-agent-loop-spec error handling)', () => {
  const now = Date.UTC(2026, 0, 1);

  it('prefers retry-after-ms, then retry-after in seconds or as an HTTP date', () => {
    expect(retryAfterMs({ 'retry-after-ms': '1500', 'retry-after': '9' }, now)).toBe(1500);
    expect(retryAfterMs({ 'Retry-After': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': new Date(now + 4000).toUTCString() }, now)).toBe(4000);
  });

  it('ignores absent, negative and unparsable values', () => {
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '-1' }, now)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
  });
});

describe('transientFailure', () => {
  it('treats 408, 429, 500-504, 529 and network failures as transient', () => {
    for (const status of [408, 429, 500, 502, 503, 504, 529]) {
      expect(transientFailure(apiError(status), 0)?.statusCode).toBe(status);
    }
    expect(transientFailure(apiError(undefined), 0)).toMatchObject({ message: 'HTTP none' });
  });

  it('never retries authentication, permission or bad-request errors, nor other errors', () => {
    for (const status of [400, 401, 403, 404, 422])
      expect(transientFailure(apiError(status), 0)).toBeUndefined();
    expect(transientFailure(new Error('tool bug'), 0)).toBeUndefined();
  });
});

describe('transientRetryDelayMs', () => {
  const policy = DEFAULT_TRANSIENT_RETRY_POLICY;

  it('doubles from 1 s with jitter in [0.5, 1) and caps at 60 s', () => {
    const failure = { message: 'x', statusCode: 429 };
    const delays = [1, 2, 3, 8].map((attempt) =>
      transientRetryDelayMs({ attempt, failure, policy, random: () => 0 }),
    );
    expect(delays).toEqual([500, 1000, 2000, 30_000]);
    expect(transientRetryDelayMs({ attempt: 2, failure, policy, random: () => 0.999 })).toBe(1999);
  });

  it('takes the server retry-after as is', () => {
    const failure = { message: 'x', statusCode: 429, retryAfterMs: 7000 };
    expect(transientRetryDelayMs({ attempt: 1, failure, policy, random: () => 0 })).toBe(7000);
  });
});
