import { createGunzip, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, gzipEventStream } from './gzip-event-stream.js';

describe('acceptsGzip', () => {
  it('reads the Accept-Encoding header browsers and HTTP clients send', () => {
    expect(acceptsGzip('gzip, deflate, br, zstd')).toBe(true);
    expect(acceptsGzip('gzip, deflate')).toBe(true);
    expect(acceptsGzip('br;q=1.0, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip; q=0.000, br')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('x-gzip')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});

describe('gzipEventStream', () => {
  it('flushes each chunk: the first message decodes while the stream is still open; cancelling reaches the source', async () => {
    let source!: ReadableStreamDefaultController<Uint8Array>;
    let cancelled: unknown;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        source = controller;
      },
      cancel(reason) {
        cancelled = reason ?? 'cancelled';
      },
    });
    const response = gzipEventStream(
      new Response(body, { headers: { 'Content-Type': 'text/event-stream', Vary: 'Origin' } }),
    );
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('vary')).toBe('Origin, Accept-Encoding');
    expect(response.headers.get('content-type')).toBe('text/event-stream');

    const gunzip = createGunzip();
    let decoded = '';
    let wake: (() => void) | undefined;
    gunzip.on('data', (chunk: Buffer) => {
      decoded += chunk.toString('utf8');
      wake?.();
    });
    const reader = response.body!.getReader();
    const pump = (async () => {
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        gunzip.write(value);
      }
    })();
    const until = async (text: string) => {
      while (!decoded.includes(text)) await new Promise<void>((resolve) => (wake = resolve));
    };

    source.enqueue(new TextEncoder().encode('data: {"seq":1}\nid: 1\n\n'));
    await until('id: 1\n\n');
    source.enqueue(new TextEncoder().encode(': heartbeat 15000\n\n'));
    await until(': heartbeat 15000\n\n');
    expect(decoded).toBe('data: {"seq":1}\nid: 1\n\n: heartbeat 15000\n\n');

    await reader.cancel('client went away');
    await pump;
    expect(cancelled).toBe('client went away');
  });

  it('ends when the source ends, with everything it wrote', async () => {
    const text = `${'data: {"type":"stage.completed"}\n\n'.repeat(2000)}event: end\ndata: {}\n\n`;
    const response = gzipEventStream(new Response(text));
    const compressed = Buffer.from(await response.arrayBuffer());
    expect(compressed.length).toBeLessThan(text.length / 10);
    expect(gunzipSync(compressed).toString('utf8')).toBe(text);
  });
});
