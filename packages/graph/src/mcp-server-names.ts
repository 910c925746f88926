/**
 * The MCP servers a node asks for: its `mcp_servers` attribute (set on the node or by the `model_stylesheet`), a
 * comma-separated list of server names defined in the CLI's `attractor.config.*` (README "MCP").
 */
import type { GraphNode } from './graph.js';

/**
 * The server names of a node's `mcp_servers`, trimmed, empty entries and repeats dropped, in written order. Empty
 * when the node sets none (or `mcp_servers="none"`).
 *
 * @example mcpServerNames(node) // ['docs', 'tracker'] for mcp_servers="docs, tracker"
 */
export function mcpServerNames(node: GraphNode): string[] {
  const value = node.attributes.mcp_servers?.value ?? '';
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 1 && names[0]?.toLowerCase() === 'none') return [];
  return [...new Set(names)];
}
