/**
 * The worker's small HTTP listener (`attractor worker --metrics-port`): `GET /healthz` (the process answers),
 * `GET /readyz` (the run store and the queue answer; 503 with the failing check otherwise) and `GET /metrics`
 * (Prometheus text). The server (`attractor serve`) serves the same routes on its own port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsExposition, ReadinessReport } from '@attractor/server';

/** Options of {@link startHealthListener}. */
export interface HealthListenerOptions {
  readonly host: string;
  readonly port: number;
  readonly ready: () => Promise<ReadinessReport>;
  readonly metrics: () => Promise<MetricsExposition>;
}

/** A listening health listener. */
export interface HealthListener {
  /** `http://host:port`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the listener; resolves once it listens.
 * @throws {Error} when the port cannot be bound (the error's `code`: EADDRINUSE, EACCES).
 */
export async function startHealthListener(options: HealthListenerOptions): Promise<HealthListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, contentType: string, body: string) => {
      response.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
      response.end(body);
    };
    if (request.method !== 'GET') return send(405, 'application/json', '{"error":"only GET"}');
    if (path === '/healthz') return send(200, 'application/json', '{"status":"ok"}');
    if (path === '/readyz') {
      void options.ready().then(
        (report) => send(report.ready ? 200 : 503, 'application/json', JSON.stringify(report)),
        (error: unknown) =>
          send(503, 'application/json', JSON.stringify({ ready: false, error: String(error) })),
      );
      return;
    }
    if (path === '/metrics') {
      void options.metrics().then(
        (exposition) => send(200, exposition.contentType, exposition.body),
        (error: unknown) => send(500, 'text/plain', `metrics failed: ${String(error)}\n`),
      );
      return;
    }
    send(404, 'application/json', '{"error":"not found: GET /healthz, /readyz or /metrics"}');
  });
  const address = await new Promise<AddressInfo>((resolveListening, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolveListening(server.address() as AddressInfo));
  });
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolveClosed) => {
        server.closeAllConnections();
        server.close(() => resolveClosed());
      }),
  };
}
