/**
 * MCP servers in LLM stages (README "MCP"): a real MCP server process (test/fixtures/lookup-mcp-server.mjs, the
 * official SDK on stdio) started through the AI SDK's MCP client for a pipeline whose stage names it in
 * `mcp_servers`, its tool called by the model on the scripted OpenAI server, and the process gone once the run ends.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PipelineEvent, runPipeline } from '@attractor/engine';
import { tempDir } from '@attractor/engine/test';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAiSdkBackend, type McpServerConfig } from '../src/index.js';
import {
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../src/test/index.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/lookup-mcp-server.mjs', import.meta.url));
const SECRET = 'fixture-secret-7f3a9c2e41';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every file under `dir`, with its text. */
async function filesUnder(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true })) {
    const path = join(dir, entry);
    if ((await stat(path)).isFile()) files.set(path, await readFile(path, 'utf8'));
  }
  return files;
}

async function runWithLookupServer(
  script: readonly ScriptedReply[],
  options: { readonly onEvent?: (event: PipelineEvent) => void; readonly abortSignal?: AbortSignal } = {},
) {
  server = await startScriptedOpenAIServer({ script });
  const root = tempDir('backend-mcp-');
  const pidFile = join(root, 'mcp-server.pid');
  const mcpServers: Record<string, McpServerConfig> = {
    lookup: {
      command: process.execPath,
      args: [FIXTURE],
      env: { PID_FILE: pidFile, FIXTURE_SECRET: SECRET },
    },
  };
  const prepared = prepareGraph(
    `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      work [prompt="What is the capital of France?", mcp_servers="lookup"]
      start -> work -> exit
    }`,
    { mcpServers: Object.keys(mcpServers) },
  );
  expect(prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
  const events: PipelineEvent[] = [];
  const logsRoot = join(root, 'run');
  const result = await runPipeline({
    graph: prepared.graph!,
    registry: createDefaultRegistry(),
    logsRoot,
    workdir: root,
    backend: createAiSdkBackend({
      baseURL: server.baseURL,
      apiKey: 'k',
      defaultModel: 'gpt-test',
      retry: { maxAttempts: 1 },
      env: { PATH: process.env.PATH },
      mcpServers,
    }),
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
  });
  const pid = Number(await readFile(pidFile, 'utf8'));
  return { result, events, logsRoot, pid };
}

describe('mcp_servers on an LLM stage', () => {
  it('offers the server tool, returns its result to the model, records the call, and stops the server', async () => {
    const { result, events, logsRoot, pid } = await runWithLookupServer([
      { type: 'tool-calls', calls: [{ name: 'lookup__lookup', arguments: { country: 'France' } }] },
      { type: 'text', text: 'Paris.' },
    ]);

    expect(result.status).toBe('success');
    expect(server!.requests[0]!.toolNames).toContain('lookup__lookup');
    const toolResult = server!.requests[1]!.messages.at(-1);
    expect(toolResult).toMatchObject({ role: 'tool' });
    expect(toolResult?.text).toContain('The capital of France is Paris');
    // The value of the server's env reaches neither the model, nor an event, nor a file of the run.
    expect(toolResult?.text).toContain('key [REDACTED]');
    expect(JSON.stringify(server!.requests)).not.toContain(SECRET);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'agent.tool_call.started',
        nodeId: 'work',
        toolName: 'lookup__lookup',
        arguments: { country: 'France' },
      }),
    );
    const completed = events.find((event) => event.type === 'agent.tool_call.completed');
    expect(completed).toMatchObject({ toolName: 'lookup__lookup', isError: false });
    expect(JSON.stringify(events)).not.toContain(SECRET);
    const files = await filesUnder(logsRoot);
    const transcript = files.get(join(logsRoot, 'work', 'transcript.jsonl'));
    expect(transcript).toContain('The capital of France is Paris');
    for (const [path, text] of files) expect(text, path).not.toContain(SECRET);

    await vi.waitFor(() => expect(isRunning(pid)).toBe(false), { timeout: 60_000, interval: 50 });
  });

  it('stops the server when the stage fails', async () => {
    const { result, pid } = await runWithLookupServer([
      { type: 'tool-calls', calls: [{ name: 'lookup__lookup', arguments: { country: 'Peru' } }] },
      { type: 'error', status: 401, message: 'Incorrect API key provided' },
    ]);

    expect(result.status).toBe('fail');
    await vi.waitFor(() => expect(isRunning(pid)).toBe(false), { timeout: 60_000, interval: 50 });
  });

  it('stops the server when the run is cancelled', async () => {
    const cancel = new AbortController();
    const { result, pid } = await runWithLookupServer(
      [
        { type: 'tool-calls', calls: [{ name: 'lookup__lookup', arguments: { country: 'France' } }] },
        { type: 'text', text: 'Paris.' },
      ],
      {
        abortSignal: cancel.signal,
        // Cancelled once the tool answered: the run stops before the next model call ends.
        onEvent: (event) => {
          if (event.type === 'agent.tool_call.completed') cancel.abort();
        },
      },
    );

    expect(result.status).toBe('cancelled');
    await vi.waitFor(() => expect(isRunning(pid)).toBe(false), { timeout: 60_000, interval: 50 });
  });

  it('starts no server and offers no MCP tool to a text-only stage (tools="none")', async () => {
    server = await startScriptedOpenAIServer({ script: [{ type: 'text', text: 'A summary.' }] });
    const root = tempDir('backend-mcp-');
    const pidFile = join(root, 'mcp-server.pid');
    const prepared = prepareGraph(
      `digraph G {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        work [prompt="Summarize", tools="none", mcp_servers="lookup"]
        start -> work -> exit
      }`,
      { mcpServers: ['lookup'] },
    );
    const result = await runPipeline({
      graph: prepared.graph!,
      registry: createDefaultRegistry(),
      logsRoot: join(root, 'run'),
      workdir: root,
      backend: createAiSdkBackend({
        baseURL: server.baseURL,
        apiKey: 'k',
        defaultModel: 'gpt-test',
        env: { PATH: process.env.PATH },
        mcpServers: { lookup: { command: process.execPath, args: [FIXTURE], env: { PID_FILE: pidFile } } },
      }),
    });

    expect(result.status).toBe('success');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.toolNames).toEqual([]);
    expect(await readFile(pidFile, 'utf8').catch(() => 'not started')).toBe('not started');
  });

  it('fails the stage naming the attribute and the defined servers for an undefined name', async () => {
    server = await startScriptedOpenAIServer({ script: [{ type: 'text', text: 'unused' }] });
    const prepared = prepareGraph(
      `digraph G {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        work [prompt="Go", mcp_servers="lookpu"]
        start -> work -> exit
      }`,
    );
    const events: PipelineEvent[] = [];
    const root = tempDir('backend-mcp-');
    const result = await runPipeline({
      graph: prepared.graph!,
      registry: createDefaultRegistry(),
      logsRoot: join(root, 'run'),
      workdir: root,
      backend: createAiSdkBackend({
        baseURL: server.baseURL,
        apiKey: 'k',
        defaultModel: 'gpt-test',
        mcpServers: { lookup: { command: process.execPath, args: [FIXTURE] } },
      }),
      onEvent: (event) => events.push(event),
    });

    expect(result.status).toBe('fail');
    expect(result.failureReason).toContain(
      'Node "work" has mcp_servers naming "lookpu", which is not defined (defined: lookup)',
    );
    expect(server.requests).toHaveLength(0);
  });
});

/** An MCP server with one tool, `status`, that answers with the Authorization header its connection got. */
function statusMcpServer(authorization: string | undefined): McpServer {
  const mcp = new McpServer({ name: 'status-fixture', version: '1.0.0' });
  mcp.registerTool(
    'status',
    { description: 'The service status.', inputSchema: { service: z.string() } },
    async ({ service }) => ({
      content: [{ type: 'text', text: `${service} is up (auth ${authorization ?? 'none'})` }],
    }),
  );
  return mcp;
}

/** The text of a request's body. */
function bodyText(request: IncomingMessage): Promise<string> {
  return new Promise((resolveBody) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
  });
}

/**
 * An MCP server on 127.0.0.1 (official SDK) with the `status` tool, over streamable HTTP (stateless, `/mcp`) or the
 * older SSE transport (`GET /sse` opens the stream, `POST /messages?sessionId=` carries the client's messages);
 * records every request's Authorization header.
 */
async function startHttpMcpServer(transportType: 'http' | 'sse' = 'http'): Promise<{
  url: string;
  authorizations: string[];
  close(): Promise<void>;
}> {
  const authorizations: string[] = [];
  const sseSessions = new Map<string, SSEServerTransport>();
  const http: Server = createServer(async (request, response) => {
    authorizations.push(request.headers.authorization ?? '');
    if (transportType === 'sse') {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (request.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', response);
        sseSessions.set(transport.sessionId, transport);
        response.on('close', () => sseSessions.delete(transport.sessionId));
        await statusMcpServer(request.headers.authorization).connect(transport);
        return;
      }
      const transport = sseSessions.get(url.searchParams.get('sessionId') ?? '');
      if (request.method !== 'POST' || url.pathname !== '/messages' || transport === undefined) {
        response.writeHead(404).end();
        return;
      }
      await transport.handlePostMessage(request, response, JSON.parse(await bodyText(request)));
      return;
    }
    const text = await bodyText(request);
    const mcp = statusMcpServer(request.headers.authorization);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, text === '' ? undefined : JSON.parse(text));
  });
  await new Promise<void>((resolveListening) => http.listen(0, '127.0.0.1', () => resolveListening()));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${transportType === 'sse' ? 'sse' : 'mcp'}`,
    authorizations,
    close: () =>
      new Promise<void>((resolveClosed) => {
        http.close(() => resolveClosed());
        http.closeAllConnections();
      }),
  };
}

describe('mcp_servers with an HTTP server', () => {
  it.each([
    ['streamable HTTP', 'http'],
    ['the SSE transport', 'sse'],
  ] as const)('calls the tool over %s with the headers, masking their values', async (_name, transport) => {
    const mcp = await startHttpMcpServer(transport);
    const token = 'Bearer http-mcp-token-5d2c81';
    try {
      server = await startScriptedOpenAIServer({
        script: [
          { type: 'tool-calls', calls: [{ name: 'ops__status', arguments: { service: 'billing' } }] },
          { type: 'text', text: 'Billing is up.' },
        ],
      });
      const prepared = prepareGraph(
        `digraph G {
          start [shape=Mdiamond]
          exit [shape=Msquare]
          work [prompt="Is billing up?", mcp_servers="ops"]
          start -> work -> exit
        }`,
      );
      const events: PipelineEvent[] = [];
      const root = tempDir('backend-mcp-http-');
      const result = await runPipeline({
        graph: prepared.graph!,
        registry: createDefaultRegistry(),
        logsRoot: join(root, 'run'),
        workdir: root,
        backend: createAiSdkBackend({
          baseURL: server.baseURL,
          apiKey: 'k',
          defaultModel: 'gpt-test',
          mcpServers: { ops: { url: mcp.url, transport, headers: { Authorization: token } } },
        }),
        onEvent: (event) => events.push(event),
      });

      expect(result.status).toBe('success');
      expect(mcp.authorizations.length).toBeGreaterThan(0);
      expect(mcp.authorizations.every((authorization) => authorization === token)).toBe(true);
      const toolResult = server.requests[1]!.messages.at(-1);
      expect(toolResult?.text).toBe('billing is up (auth [REDACTED])');
      expect(JSON.stringify(events)).not.toContain('http-mcp-token-5d2c81');
      for (const [path, text] of await filesUnder(join(root, 'run')))
        expect(text, path).not.toContain('http-mcp-token-5d2c81');
    } finally {
      await mcp.close();
    }
  });
});
