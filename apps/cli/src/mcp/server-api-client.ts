/**
 * Calls the HTTP API of spec §9.5 in-process, through a `ServerApp`'s `fetch` with its bearer token: `attractor mcp`
 * answers its tools with the server's own routes (the same runs, checks, masking and tool guard as `attractor serve`).
 */
import type { ServerApp } from '@attractor/server';

/** An API answer: the status, and the body as JSON (when it is JSON) or text. */
export interface ApiAnswer {
  readonly ok: boolean;
  readonly status: number;
  readonly body: unknown;
}

/** One message of an SSE stream: its `event` name (`message` by default) and its `data` parsed as JSON. */
export interface SseMessage {
  readonly event: string;
  readonly data: unknown;
}

/** The client of one server app. */
export interface ServerApiClient {
  /** Sends a request; `body` goes as JSON. Never throws for an HTTP error: look at `ok` and `status`. */
  request(options: {
    readonly method: 'GET' | 'POST';
    readonly path: string;
    readonly body?: unknown;
  }): Promise<ApiAnswer>;
  /**
   * Reads an SSE route (`GET path`), calling `onMessage` for each message (awaiting it) until the stream ends or
   * `onMessage` returns `'stop'`. Returns the HTTP error answer when the route refuses, else undefined.
   */
  stream(options: {
    readonly path: string;
    readonly onMessage: (message: SseMessage) => 'stop' | undefined | Promise<'stop' | undefined>;
  }): Promise<ApiAnswer | undefined>;
}

function parseBody(text: string, contentType: string): unknown {
  if (!contentType.includes('json')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function parseSseMessage(block: string): SseMessage | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return undefined;
  const text = data.join('\n');
  try {
    return { event, data: JSON.parse(text) as unknown };
  } catch {
    return { event, data: text };
  }
}

/** Creates the client of `app`. Requests carry its token and a loopback `Host` (the app's DNS-rebinding check). */
export function createServerApiClient(app: ServerApp): ServerApiClient {
  const headers = (json: boolean): Record<string, string> => ({
    authorization: `Bearer ${app.token}`,
    host: 'localhost',
    ...(json ? { 'content-type': 'application/json' } : {}),
  });
  const answerOf = async (response: Response): Promise<ApiAnswer> => ({
    ok: response.ok,
    status: response.status,
    body: parseBody(await response.text(), response.headers.get('content-type') ?? ''),
  });
  return {
    async request({ method, path, body }) {
      const response = await app.fetch(
        new Request(`http://localhost${path}`, {
          method,
          headers: headers(body !== undefined),
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      return answerOf(response);
    },
    async stream({ path, onMessage }) {
      const controller = new AbortController();
      const response = await app.fetch(
        new Request(`http://localhost${path}`, { headers: headers(false), signal: controller.signal }),
      );
      if (!response.ok || response.body === null) return answerOf(response);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return undefined;
          buffer += value.replaceAll('\r\n', '\n');
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            const message = parseSseMessage(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (message !== undefined && (await onMessage(message)) === 'stop') return undefined;
            end = buffer.indexOf('\n\n');
          }
        }
      } finally {
        controller.abort();
        await reader.cancel().catch(() => undefined);
      }
    },
  };
}
