/**
 * `attractor mcp`: Attractor as an MCP server (README "MCP") for agents and IDEs, over stdio, or over streamable HTTP
 * at `/mcp` with `--port`. Its tools work on the runs of the same server `attractor serve` starts (same options:
 * runs directory, `--allow-tools`, backends, config, `--store`/`--queue`), called in-process; over HTTP, requests
 * carry the server's bearer token (`--token`, `ATTRACTOR_SERVER_TOKEN`, else a random one printed on stderr).
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { isLoopbackHostHeader, openServerApp } from '@attractor/server';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CliIo } from '../cli-io.js';
import { lintOptionsOf } from '../config/load-cli-config.js';
import { CliError } from '../errors/cli-error.js';
import { createAttractorMcpServer } from '../mcp/create-attractor-mcp-server.js';
import { createServerApiClient } from '../mcp/server-api-client.js';
import { SERVER_TOKEN_ENV } from './serve-options.js';
import { prepareServer, type ServerSetupCliOptions } from './server-setup.js';
import { waitForStop } from './wait-for-stop.js';

/** The options of `attractor mcp`: those of `serve`, with `--port` turning on HTTP. */
export interface McpCliOptions extends ServerSetupCliOptions {
  /** Serve streamable HTTP on this port (0: a free one) instead of stdio. */
  readonly port?: number;
  /** The interface of the HTTP server. Default: 127.0.0.1. */
  readonly host: string;
}

/** Options of {@link mcpCommand}. */
export interface McpCommandOptions {
  readonly options: McpCliOptions;
  /** The CLI's streams (messages go to its stderr). */
  readonly io: CliIo;
  /** The process's own streams, unmasked, for the stdio transport: its messages must pass unchanged. */
  readonly protocolIo: CliIo;
  readonly version: string;
  /** Stops the server when aborted. Default: SIGINT / SIGTERM of this process (and, on stdio, the end of stdin). */
  readonly stopSignal?: AbortSignal;
}

/** Runs the MCP server until stopped (stdio: until the client closes stdin); resolves with the exit code (0). */
export async function mcpCommand(command: McpCommandOptions): Promise<number> {
  const { options, io } = command;
  const prepared = await prepareServer(options, io, { metrics: false });
  const app = openServerApp({ ...prepared.startOptions, host: options.host });
  const api = createServerApiClient(app);
  const lint = lintOptionsOf(prepared.config);
  const create = () =>
    createAttractorMcpServer({
      api,
      lint: {
        knownHandlerTypes: lint.knownHandlerTypes,
        handlers: lint.handlers,
        mcpServers: lint.mcpServers,
      },
      version: command.version,
    });
  try {
    if (options.port === undefined) {
      const output = command.protocolIo.stdout as unknown as Writable;
      if (typeof output.on !== 'function') {
        throw new CliError({
          code: 'CLI_USAGE',
          message: 'attractor mcp without --port talks over the standard streams of a process.',
        });
      }
      const transport = new StdioServerTransport(command.protocolIo.stdin as Readable, output);
      const closed = new Promise<void>((resolveClosed) => {
        (command.protocolIo.stdin as Readable).once('end', () => resolveClosed());
        transport.onclose = () => resolveClosed();
      });
      const server = create();
      await server.connect(transport);
      await Promise.race([closed, waitForStop(command.stopSignal)]);
      await server.close();
      return 0;
    }
    const http = createServer((request, response) => {
      void handleHttp({ request, response, token: app.token, host: options.host, create }).catch(
        (error: unknown) => {
          if (!response.headersSent) {
            response.writeHead(500, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ error: { code: 'INTERNAL', message: (error as Error).message } }));
          }
        },
      );
    });
    const address = await new Promise<AddressInfo>((resolveListening, reject) => {
      http.once('error', reject);
      http.listen(options.port, options.host, () => resolveListening(http.address() as AddressInfo));
    }).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      throw new CliError({
        code: 'CLI_USAGE',
        message: `Cannot listen on ${options.host}:${options.port} (${code ?? (error as Error).message}). Choose another --port (0 picks a free one) or --host.`,
        cause: error,
      });
    });
    const stopped = waitForStop(command.stopSignal);
    const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    io.stderr.write(`Attractor MCP server (streamable HTTP) at http://${urlHost}:${address.port}/mcp\n`);
    io.stderr.write(
      `Token: ${prepared.tokenFromEnv ? `the value of $${SERVER_TOKEN_ENV}` : app.token} (clients send "Authorization: Bearer <token>"). Ctrl-C stops it.\n`,
    );
    await stopped;
    await new Promise<void>((resolveClosed) => {
      http.close(() => resolveClosed());
      http.closeAllConnections();
    });
    return 0;
  } finally {
    await app.close();
    await prepared.close();
  }
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function refuse(response: ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    ...(status === 401 ? { 'www-authenticate': 'Bearer realm="attractor"' } : {}),
  });
  response.end(JSON.stringify({ error: { code, message } }));
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 4 * 1024 * 1024) throw new Error('request body over 4 MiB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/**
 * One HTTP request: `/mcp` only, with the bearer token, and from a loopback `Host` when listening on loopback (the
 * DNS-rebinding defence of `attractor serve`); then a fresh MCP server and stateless transport answer it.
 */
async function handleHttp(options: {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly token: string;
  readonly host: string;
  readonly create: () => ReturnType<typeof createAttractorMcpServer>;
}): Promise<void> {
  const { request, response } = options;
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path !== '/mcp') {
    refuse(response, 404, 'NOT_FOUND', `No route ${request.method} ${path}: the MCP endpoint is /mcp.`);
    return;
  }
  const loopback = isLoopbackHostHeader(options.host.includes(':') ? `[${options.host}]` : options.host);
  if (loopback && !isLoopbackHostHeader(request.headers.host ?? '')) {
    refuse(
      response,
      403,
      'FORBIDDEN_HOST',
      `This server listens on loopback only and refuses Host "${request.headers.host ?? ''}" (DNS-rebinding defence).`,
    );
    return;
  }
  const authorization = request.headers.authorization ?? '';
  const given = authorization.startsWith('Bearer ') ? authorization.slice(7).trim() : '';
  if (!sameToken(given, options.token)) {
    refuse(response, 401, 'UNAUTHORIZED', 'Send the server token as "Authorization: Bearer <token>".');
    return;
  }
  let body: unknown;
  try {
    body = request.method === 'POST' ? await readJsonBody(request) : undefined;
  } catch (error) {
    refuse(
      response,
      400,
      'INVALID_REQUEST',
      `The request body is not a JSON-RPC message: ${(error as Error).message}.`,
    );
    return;
  }
  const server = options.create();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}
