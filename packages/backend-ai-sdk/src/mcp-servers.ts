/**
 * MCP servers for LLM stages (README "MCP"): the servers a node names in `mcp_servers`, started through the AI SDK's
 * MCP client (`@ai-sdk/mcp`) when a stage of a run first needs them, shared by the run's later stages, and stopped
 * when the run ends (`closeRun`) or the backend closes (`close`). Their tools join the stage's built-in tools.
 */
import { sep } from 'node:path';
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { redactSecrets } from '@attractor/engine';
import type { FlexibleSchema } from 'ai';
import { BackendConfigurationError } from './errors/backend-configuration-error.js';

/** An MCP server started as a child process speaking MCP on its stdin and stdout. */
export interface McpStdioServer {
  /** The program, e.g. `npx` or `node`. */
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * Variables of the server process, over `PATH` and `HOME` of the backend's (filtered) environment. Their values
   * are treated as secrets: masked in events, transcripts and messages.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the process. Default: the run's working directory. */
  readonly cwd?: string;
}

/** An MCP server reached over HTTP (streamable HTTP, or the older SSE transport). */
export interface McpHttpServer {
  /** The endpoint, e.g. `https://mcp.example.com/mcp`. */
  readonly url: string;
  /** Headers of every request (e.g. `Authorization`). Their values are masked like secrets. */
  readonly headers?: Readonly<Record<string, string>>;
  /** `http` (streamable HTTP) or `sse`. Default: `http`. */
  readonly transport?: 'http' | 'sse';
}

/** How to reach one MCP server: a stdio command or an HTTP URL. */
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** A tool of an MCP server, ready to wrap in the stage's tool-call pipeline. */
export interface McpStageTool {
  readonly description?: string;
  readonly inputSchema: FlexibleSchema<unknown>;
  /** Calls the tool; the result as the text the model sees, and whether the server reported an error. */
  call(input: unknown, abortSignal?: AbortSignal): Promise<{ output: string; isError: boolean }>;
}

/** The MCP clients of a backend, by run. */
export interface McpConnections {
  /**
   * The tools of the named servers for a stage of the run `runKey`, named `<server>__<tool>`; each server is
   * started on first use in the run. `cwd` is the default working directory of stdio servers.
   *
   * @throws {BackendConfigurationError} (`mcp_servers`) for a name without a definition or a server that fails to
   *   start or list its tools; the servers of the run started so far keep running until `closeRun`.
   */
  tools(options: {
    readonly runKey: string;
    readonly names: readonly string[];
    readonly nodeId: string;
    readonly cwd: string;
  }): Promise<Record<string, McpStageTool>>;
  /**
   * Stops the servers of the run in `logsRoot` and of the runs under it (parallel branches, child pipelines): their
   * processes end, HTTP sessions are closed. Never throws.
   */
  closeRun(logsRoot: string): Promise<void>;
  /** Stops every server of every run. Never throws. */
  close(): Promise<void>;
}

/** The secret values of server definitions: every `env` and `headers` value, to mask wherever text goes. */
export function mcpSecretValues(servers: Readonly<Record<string, McpServerConfig>>): string[] {
  const values: string[] = [];
  for (const server of Object.values(servers)) {
    const secrets = 'url' in server ? server.headers : server.env;
    for (const value of Object.values(secrets ?? {})) if (value.trim() !== '') values.push(value);
  }
  return values;
}

/** How a server was given, for messages: its command line or URL (never its env or headers). */
export function describeMcpServer(server: McpServerConfig): string {
  return 'url' in server ? server.url : [server.command, ...(server.args ?? [])].join(' ');
}

interface ContentPart {
  readonly type: string;
  readonly text?: string;
  readonly mimeType?: string;
  readonly data?: string;
  readonly resource?: { readonly uri?: string; readonly text?: string };
}

/** The text of an MCP `CallToolResult` for the model: text parts as written, other parts described. */
export function formatCallToolResult(result: unknown): { output: string; isError: boolean } {
  const value = (result ?? {}) as {
    readonly content?: readonly ContentPart[];
    readonly structuredContent?: unknown;
    readonly toolResult?: unknown;
    readonly isError?: boolean;
  };
  const parts = (value.content ?? []).map((part) => {
    if (part.type === 'text') return part.text ?? '';
    if (part.type === 'resource') return part.resource?.text ?? `[resource ${part.resource?.uri ?? ''}]`;
    if (part.type === 'resource_link') return `[resource ${(part as { uri?: string }).uri ?? ''}]`;
    return `[${part.type}${part.mimeType === undefined ? '' : ` ${part.mimeType}`}]`;
  });
  let output = parts.join('\n');
  if (output === '' && value.structuredContent !== undefined)
    output = JSON.stringify(value.structuredContent);
  if (output === '' && value.toolResult !== undefined) output = JSON.stringify(value.toolResult);
  return { output, isError: value.isError === true };
}

/**
 * Creates the MCP connections of a backend over `servers` (name to definition). `env` is the backend's filtered
 * environment: stdio servers get its `PATH` and `HOME` under their own `env`.
 */
export function createMcpConnections(options: {
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  readonly env: Readonly<Record<string, string>>;
}): McpConnections {
  const runs = new Map<string, Map<string, Promise<MCPClient>>>();
  const secrets = mcpSecretValues(options.servers);
  const base: Record<string, string> = {};
  for (const key of ['PATH', 'HOME']) {
    const value = options.env[key];
    if (value !== undefined) base[key] = value;
  }

  const start = (server: McpServerConfig, cwd: string): Promise<MCPClient> =>
    createMCPClient({
      clientName: 'attractor',
      transport:
        'url' in server
          ? {
              type: server.transport ?? 'http',
              url: server.url,
              ...(server.headers === undefined ? {} : { headers: { ...server.headers } }),
            }
          : new StdioMCPTransport({
              command: server.command,
              args: [...(server.args ?? [])],
              env: { ...base, ...server.env },
              cwd: server.cwd ?? cwd,
              // The server's own log could hold what its env holds: it goes nowhere.
              stderr: 'ignore',
            }),
    });

  const closeClients = async (clients: Map<string, Promise<MCPClient>> | undefined): Promise<void> => {
    if (clients === undefined) return;
    await Promise.all(
      [...clients.values()].map(async (pending) => {
        try {
          await (await pending).close();
        } catch {
          // A server that failed to start has nothing to close; one that fails to close is gone anyway.
        }
      }),
    );
  };

  return {
    async tools({ runKey, names, nodeId, cwd }) {
      let clients = runs.get(runKey);
      if (clients === undefined) {
        clients = new Map();
        runs.set(runKey, clients);
      }
      const tools: Record<string, McpStageTool> = {};
      for (const name of names) {
        const server = options.servers[name];
        if (server === undefined) {
          const known = Object.keys(options.servers);
          throw new BackendConfigurationError({
            setting: 'mcp_servers',
            nodeId,
            message: `Node "${nodeId}" has mcp_servers naming "${name}", which is not defined (${known.length === 0 ? 'no MCP servers are defined' : `defined: ${known.join(', ')}`}). Define it under mcpServers in attractor.config.*, or remove it from mcp_servers.`,
          });
        }
        let pending = clients.get(name);
        if (pending === undefined) {
          pending = start(server, cwd);
          clients.set(name, pending);
        }
        let client: MCPClient;
        let definitions: Awaited<ReturnType<MCPClient['listTools']>>;
        try {
          client = await pending;
          definitions = await client.listTools();
        } catch (error) {
          throw new BackendConfigurationError({
            setting: 'mcp_servers',
            nodeId,
            message: `MCP server "${name}" (${describeMcpServer(server)}) of node "${nodeId}" did not start: ${error instanceof Error ? error.message : String(error)}. Check its definition under mcpServers in attractor.config.*.`,
          });
        }
        const set = client.toolsFromDefinitions(definitions);
        for (const [toolName, definition] of Object.entries(set)) {
          tools[`${name}__${toolName}`] = {
            ...(typeof definition.description === 'string' ? { description: definition.description } : {}),
            inputSchema: definition.inputSchema as FlexibleSchema<unknown>,
            call: async (input, abortSignal) => {
              const result = formatCallToolResult(
                await client.callTool({
                  name: toolName,
                  arguments: (input ?? {}) as Record<string, unknown>,
                  ...(abortSignal === undefined ? {} : { options: { signal: abortSignal } }),
                }),
              );
              // A server may echo what its env or headers hold: the model, events and files get it masked.
              return { output: redactSecrets(result.output, secrets), isError: result.isError };
            },
          };
        }
      }
      return tools;
    },
    async closeRun(logsRoot) {
      const ended = [...runs.keys()].filter((key) => key === logsRoot || key.startsWith(`${logsRoot}${sep}`));
      const clients = ended.map((key) => runs.get(key));
      for (const key of ended) runs.delete(key);
      await Promise.all(clients.map(closeClients));
    },
    async close() {
      const all = [...runs.values()];
      runs.clear();
      await Promise.all(all.map(closeClients));
    },
  };
}
