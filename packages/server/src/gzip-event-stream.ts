/**
 * gzip for an event stream, for a client that accepts it: every chunk the stream writes is compressed and flushed at
 * once (zlib `Z_SYNC_FLUSH`), so each event still reaches the client when it is written, while a replay of thousands
 * of events (one large write per batch) shrinks to a fraction. Hono's `compress` middleware cannot do this: the
 * `CompressionStream` it uses has no flush, so it leaves `text/event-stream` alone.
 */
import { constants, createGzip } from 'node:zlib';

/** Whether an `Accept-Encoding` header value accepts gzip (`gzip` listed without `q=0`). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [coding, ...parameters] = part.trim().toLowerCase().split(';');
    if (coding?.trim() !== 'gzip') continue;
    return !parameters.some((parameter) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(parameter));
  }
  return false;
}

/**
 * `response` (a streaming SSE response) with its body gzipped chunk by chunk, `Content-Encoding: gzip` and
 * `Vary: Accept-Encoding`. Cancelling the returned body (the client went away) cancels `response`'s body, so the
 * stream's writer sees the abort. Returns `response` itself when it has no body.
 */
export function gzipEventStream(response: Response): Response {
  if (response.body === null) return response;
  const reader = response.body.getReader();
  const gzip = createGzip({ flush: constants.Z_SYNC_FLUSH });
  let ended = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      gzip.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
      gzip.on('end', () => controller.close());
      gzip.on('error', (error) => controller.error(error));
    },
    async pull() {
      if (ended) return;
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        gzip.end();
        return;
      }
      // The next chunk is read once this one is compressed (and flushed): the client's pace holds back the writer.
      await new Promise<void>((resolve, reject) =>
        gzip.write(value, (error) => (error == null ? resolve() : reject(error))),
      );
    },
    async cancel(reason) {
      gzip.destroy();
      await reader.cancel(reason);
    },
  });
  const headers = new Headers(response.headers);
  headers.set('Content-Encoding', 'gzip');
  headers.append('Vary', 'Accept-Encoding');
  headers.delete('Content-Length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
