/**
 * Server-Sent Events with the bearer token: `fetch` (the token travels in the Authorization header, never in the
 * URL) read with `eventsource-parser`. A stream that drops (the server stopped, the network went away) is reopened
 * with back-off (0.5 s, 1 s, then every 2 s, at once when the browser comes back online) with `Last-Event-ID`, so
 * the server replays exactly the events missed; each reopening uses the token of that moment. Every stream reports
 * its state to {@link connection} (the header's indicator). A 401 opens the sign-in dialog (through `apiFetch`) and
 * stops the stream; another refusal (404, 400) stops it with the server's message.
 *
 * A connection can also die silently (a proxy or NAT dropping it, a suspended laptop, a server host gone without
 * closing TCP): the server's heartbeat comment (`: heartbeat <ms>`, every 15 s by default) tells the interval, and a
 * stream that then brings no byte for {@link SILENT_HEARTBEATS} intervals (nor, on reconnecting, an answer) is
 * aborted and reopened like a dropped one. Heartbeats are not events: the indicator's "last event" ignores them.
 */
import { createParser } from 'eventsource-parser';
import { ApiRequestError, apiFetch } from './api.js';
import { connection } from './connection-state.js';

/** Handlers of {@link openEventStream}, by SSE event name (`message` for unnamed events). */
export interface EventStreamHandlers {
  readonly [name: string]: (data: string, lastEventId: string) => void;
}

/** Options of {@link openEventStream}. */
export interface EventStreamOptions {
  /** Called each time the stream opens (first and after a reconnection). */
  readonly onOpen?: () => void;
  /** Called when the server refuses the stream (not retried): its error message. */
  readonly onError?: (message: string) => void;
}

/** Delays before the 1st, 2nd, … reconnection attempt, in milliseconds (the last one repeats). */
const BACKOFF_MS = [500, 1000, 2000] as const;

/** How many heartbeat intervals without a byte make a stream lost. */
export const SILENT_HEARTBEATS = 3;

/** The server's heartbeat comment: `heartbeat <interval in ms>`. */
const HEARTBEAT = /^\s*heartbeat (\d+)\s*$/;

/** Opens `path` as an SSE stream that reconnects until closed; returns the function that closes it. */
export function openEventStream(
  path: string,
  handlers: EventStreamHandlers,
  options: EventStreamOptions = {},
): () => void {
  const entry = connection.add();
  let closed = false;
  let lastEventId = '';
  let failures = 0;
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The server's heartbeat interval, once a heartbeat told it (ms); then silence is watched. */
  let heartbeatMs: number | undefined;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  /** (Re)starts the wait for the next byte of the current attempt; when it runs out, the attempt is aborted. */
  const watch = (attempt: AbortController) => {
    if (watchdog !== undefined) clearTimeout(watchdog);
    watchdog = undefined;
    if (heartbeatMs === undefined || closed) return;
    watchdog = setTimeout(() => attempt.abort(), heartbeatMs * SILENT_HEARTBEATS);
  };

  const retry = () => {
    if (closed) return;
    const delay = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)]!;
    // The first retry after a drop is "reconnecting"; once one failed, the server cannot be reached: "offline".
    entry.set(failures === 0 ? 'reconnecting' : 'offline');
    failures++;
    timer = setTimeout(connect, delay);
  };
  const onOnline = () => {
    if (closed || timer === undefined) return;
    clearTimeout(timer);
    connect();
  };

  const connect = async () => {
    timer = undefined;
    const attempt = new AbortController();
    controller = attempt;
    watch(attempt);
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (lastEventId !== '') headers['Last-Event-ID'] = lastEventId;
    try {
      const response = await apiFetch(path, { headers, signal: attempt.signal, cache: 'no-store' });
      if (closed) return;
      failures = 0;
      entry.set('live');
      options.onOpen?.();
      watch(attempt);
      const parser = createParser({
        onComment(comment) {
          const interval = HEARTBEAT.exec(comment)?.[1];
          if (interval === undefined || Number(interval) <= 0) return;
          heartbeatMs = Number(interval);
          watch(attempt);
        },
        onEvent(event) {
          if (closed) return;
          if (event.id !== undefined) lastEventId = event.id;
          entry.heard();
          handlers[event.event ?? 'message']?.(event.data, lastEventId);
        },
      });
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done || closed) break;
        watch(attempt);
        parser.feed(value);
      }
    } catch (error) {
      if (closed) return;
      if (error instanceof ApiRequestError && error.status !== 0 && error.status < 500) {
        // A 401 has opened the sign-in dialog; another refusal will not change by retrying.
        entry.remove();
        if (error.status !== 401) options.onError?.(error.message);
        return;
      }
    }
    if (watchdog !== undefined) clearTimeout(watchdog);
    watchdog = undefined;
    retry();
  };

  addEventListener('online', onOnline);
  void connect();
  return () => {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    if (watchdog !== undefined) clearTimeout(watchdog);
    controller?.abort();
    removeEventListener('online', onOnline);
    entry.remove();
  };
}
