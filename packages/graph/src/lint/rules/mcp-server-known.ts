import { mcpServerNames } from '../../mcp-server-names.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `mcp_server_known` (ERROR): every name in a node's `mcp_servers` (README "MCP") is a server the configuration
 * defines. Runs only when `validate` is told the configured names (`mcpServers`; the CLI passes those of
 * `attractor.config.*`); without them nothing is known and nothing is reported. Only nodes that call the model are
 * checked. An unknown name would fail the stage when it starts.
 */
export const mcpServerKnownRule: LintRule = {
  name: 'mcp_server_known',
  apply(graph, context) {
    const known = context.mcpServers;
    if (known === undefined) return [];
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      // A stylesheet's `*` reaches start, exit and gates too: only stages that call the model use the servers.
      if (context.traitsOf(node).callsModel !== true) continue;
      for (const name of mcpServerNames(node)) {
        if (known.has(name)) continue;
        const suggestion = didYouMean(name, known);
        const configured = [...known];
        const origin =
          node.attributes.mcp_servers?.origin === 'stylesheet' ? ' (from the model_stylesheet)' : '';
        diagnostics.push({
          rule: 'mcp_server_known',
          severity: 'error',
          message:
            `Node "${node.id}" has mcp_servers${origin} naming "${name}", which the configuration does not define ` +
            `(${configured.length === 0 ? 'it defines no MCP servers' : `it defines ${configured.join(', ')}`}).` +
            (suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`),
          nodeId: node.id,
          fix:
            suggestion === undefined
              ? `Define "${name}" under mcpServers in attractor.config.*, or remove it from mcp_servers.`
              : `Write "${suggestion}" in mcp_servers, or define "${name}" under mcpServers in attractor.config.*.`,
          span: attributeSpan(node.attributes.mcp_servers, nodeSpan(node)),
        });
      }
    }
    return diagnostics;
  },
};
