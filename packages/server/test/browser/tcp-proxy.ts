/**
 * A TCP proxy on 127.0.0.1 in front of a test server that can go silent without closing anything: `freeze()` stops
 * forwarding bytes both ways on every connection (and on connections opened meanwhile), as a proxy or NAT that lost
 * its state, a suspended laptop or a vanished host would; `thaw()` forwards again (what was held back included).
 */
import { connect, createServer, type Socket } from 'node:net';

/** A running {@link startTcpProxy}. */
export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: the proxy's address. */
  readonly url: string;
  /** Stops forwarding in both directions; no socket is closed. */
  freeze(): void;
  /** Forwards again. */
  thaw(): void;
  /** Closes the proxy and every connection through it. */
  close(): Promise<void>;
}

/** Starts a proxy forwarding to `target` (an `http://host:port` URL) on a free loopback port. */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let frozen = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (frozen) socket.pause();
  };
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    track(client);
    track(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
