/**
 * Server-Sent Events with the bearer token: the `eventsource` package (a WHATWG EventSource that takes a custom
 * `fetch`) so the token travels in the Authorization header, never in the URL. It reconnects by itself and sends
 * `Last-Event-ID`, so the server replays exactly the events missed.
 */
import { EventSource } from 'eventsource';
import { auth } from './api.js';

/** Handlers of {@link openEventStream}, by SSE event name (`message` for unnamed events). */
export interface EventStreamHandlers {
  readonly [name: string]: (data: string, lastEventId: string) => void;
}

/** Opens `path` as an SSE stream; returns the function that closes it. */
export function openEventStream(
  path: string,
  handlers: EventStreamHandlers,
  options: { readonly onOpen?: () => void; readonly onError?: (message: string) => void } = {},
): () => void {
  const source = new EventSource(path, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${auth.token}` },
      }).then((response) => {
        if (response.status === 401) auth.reject('The server did not accept that token.');
        return response;
      }),
  });
  for (const [name, handler] of Object.entries(handlers))
    source.addEventListener(name, (event) => handler(event.data, event.lastEventId));
  source.addEventListener('open', () => options.onOpen?.());
  source.addEventListener('error', (event) => {
    if (source.readyState === EventSource.CLOSED)
      options.onError?.(
        `The live connection closed${event.message === undefined ? '' : `: ${event.message}`}.`,
      );
  });
  return () => source.close();
}
