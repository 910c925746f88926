/**
 * Hono's `streamSSE` with a heartbeat: an SSE comment line `: heartbeat <ms>` as soon as the stream opens and every
 * `heartbeatMs` after, until the stream ends. Comments are not events (an `EventSource` or `eventsource-parser`
 * client dispatches nothing for them), so no client sees a message it did not ask for; but bytes flow, so a client
 * can tell a quiet stream from a dead one (a proxy or NAT that dropped the connection, a suspended laptop, a server
 * host gone without closing TCP): the web UI treats a stream that brought no byte for three heartbeats as lost and
 * reconnects. The comment carries the interval, so the client knows how long to wait. Hono's `streamSSE` has no
 * keep-alive of its own (hono 4.x).
 *
 * For a client that accepts gzip the stream is gzipped, each write flushed at once ({@link gzipEventStream}).
 */
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { checkWholeNumberOption, MAX_TIMER_MS } from './check-whole-number-option.js';
import { acceptsGzip, gzipEventStream } from './gzip-event-stream.js';

/** Default interval between two heartbeats of an event stream, in milliseconds: 15 s. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * Refuses a `heartbeatMs` option (of `startServer`, `createServerApp`) that is not a whole number of milliseconds
 * from 1 to 2147483647 (the longest delay of a Node.js timer): 0 or a fraction would send heartbeats in a busy loop,
 * NaN or a longer delay would fire every millisecond. `undefined` (the default) passes.
 *
 * @throws {ServerOptionError} naming `heartbeatMs`, the value and the allowed range.
 */
export function checkHeartbeatMs(heartbeatMs: number | undefined): void {
  checkWholeNumberOption({
    option: 'heartbeatMs',
    value: heartbeatMs,
    min: 1,
    max: MAX_TIMER_MS,
    unit: 'milliseconds',
    defaultValue: DEFAULT_HEARTBEAT_MS,
  });
}

/** Options of {@link streamSSEWithHeartbeat}. */
export interface StreamSSEWithHeartbeatOptions {
  /** Interval between two heartbeats, in milliseconds (a positive number). */
  readonly heartbeatMs: number;
  /** Sleeps `ms`, or rejects when `signal` aborts (the injected clock's sleep). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** What a failing stream does before Hono writes its `error` event (see `streamSSE`). */
  readonly onError?: (error: Error, stream: SSEStreamingApi) => Promise<void>;
}

/**
 * Answers `c` with an SSE stream written by `write`, with a heartbeat comment every `heartbeatMs` from its start to
 * its end (when `write` returns or throws, or the client goes away). A heartbeat is skipped while the previous one
 * is still unsent (a client that reads nothing gets no pile of them). Returns the streaming response, gzipped when
 * the request's `Accept-Encoding` accepts gzip.
 */
export function streamSSEWithHeartbeat(
  c: Context,
  write: (stream: SSEStreamingApi) => Promise<void>,
  options: StreamSSEWithHeartbeatOptions,
): Response {
  const { heartbeatMs, sleep } = options;
  const response = streamSSE(
    c,
    async (stream) => {
      const stop = new AbortController();
      stream.onAbort(() => stop.abort());
      const comment = `: heartbeat ${heartbeatMs}\n\n`;
      const beat = (async () => {
        let sending = false;
        while (!stop.signal.aborted) {
          // Hono's `write` hands the bytes to the stream at once (before any write of `write`'s first await).
          if (!sending) {
            sending = true;
            void stream.write(comment).finally(() => {
              sending = false;
            });
          }
          await sleep(heartbeatMs, stop.signal).catch(() => undefined);
        }
      })();
      try {
        await write(stream);
      } finally {
        stop.abort();
        await beat;
      }
    },
    options.onError,
  );
  return acceptsGzip(c.req.header('accept-encoding')) ? gzipEventStream(response) : response;
}
