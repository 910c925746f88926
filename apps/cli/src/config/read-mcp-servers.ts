/**
 * The `mcpServers` of `attractor.config.*` (README "MCP"): MCP servers by name, each a stdio command
 * (`{ command, args, env, cwd }`) or an HTTP URL (`{ url, headers, transport }`), whose tools LLM stages on the AI SDK
 * backend get through their `mcp_servers` attribute.
 */
import { isAbsolute, resolve } from 'node:path';
import type { McpServerConfig } from '@attractor/backend-ai-sdk';

/** Letters, digits, `_` and `-`: a server name is the prefix of its tools' names, which providers restrict so. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,40}$/;

function stringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((entry) => typeof entry === 'string')
  );
}

/**
 * Reads and checks the exported `mcpServers` object; `cwd` of a stdio server is resolved against `configDir`.
 * Undefined gives none.
 *
 * @throws whatever `invalid` makes (the CLI's `CLI_INVALID_INPUT` naming the config file) for a value that is not
 *   such an object, naming the server and the field at fault and the shape expected.
 */
export function readMcpServers(
  exported: unknown,
  configDir: string,
  invalid: (what: string) => Error,
): Map<string, McpServerConfig> {
  const servers = new Map<string, McpServerConfig>();
  if (exported === undefined) return servers;
  if (typeof exported !== 'object' || exported === null || Array.isArray(exported)) {
    throw invalid(
      'mcpServers must be an object { name: { command, args, env } } or { name: { url, headers } }.',
    );
  }
  for (const [name, value] of Object.entries(exported)) {
    const where = `mcpServers.${name}`;
    if (!SERVER_NAME.test(name)) {
      throw invalid(
        `the MCP server name "${name}" may use only letters, digits, _ and - (at most 40): it prefixes its tools' names.`,
      );
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalid(`${where} must be an object { command, args, env } or { url, headers }.`);
    }
    const server = value as Record<string, unknown>;
    const hasCommand = server.command !== undefined;
    const hasUrl = server.url !== undefined;
    if (hasCommand === hasUrl) {
      throw invalid(
        `${where} needs exactly one of command (a program started with stdio) and url (an HTTP endpoint).`,
      );
    }
    if (hasCommand) {
      if (typeof server.command !== 'string' || server.command.trim() === '')
        throw invalid(`${where}.command must be a non-empty string.`);
      if (
        server.args !== undefined &&
        (!Array.isArray(server.args) || server.args.some((arg) => typeof arg !== 'string'))
      )
        throw invalid(`${where}.args must be an array of strings.`);
      if (server.env !== undefined && !stringRecord(server.env))
        throw invalid(`${where}.env must be an object of strings { NAME: "value" }.`);
      if (server.cwd !== undefined && (typeof server.cwd !== 'string' || server.cwd === ''))
        throw invalid(`${where}.cwd must be a non-empty string.`);
      servers.set(name, {
        command: server.command,
        ...(server.args === undefined ? {} : { args: server.args as string[] }),
        ...(server.env === undefined ? {} : { env: server.env as Record<string, string> }),
        ...(server.cwd === undefined
          ? {}
          : {
              cwd: isAbsolute(server.cwd as string)
                ? (server.cwd as string)
                : resolve(configDir, server.cwd as string),
            }),
      });
      continue;
    }
    let url: URL | undefined;
    try {
      url = typeof server.url === 'string' ? new URL(server.url) : undefined;
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw invalid(`${where}.url must be an http:// or https:// URL.`);
    if (server.headers !== undefined && !stringRecord(server.headers))
      throw invalid(`${where}.headers must be an object of strings { Name: "value" }.`);
    if (server.transport !== undefined && server.transport !== 'http' && server.transport !== 'sse')
      throw invalid(`${where}.transport must be "http" (streamable HTTP, the default) or "sse".`);
    servers.set(name, {
      url: server.url as string,
      ...(server.headers === undefined ? {} : { headers: server.headers as Record<string, string> }),
      ...(server.transport === undefined ? {} : { transport: server.transport as 'http' | 'sse' }),
    });
  }
  return servers;
}
