/**
 * The node attribute `tools` (DESIGN.md "The AI-SDK backend"): which coding tools a stage may use.
 */
import type { GraphNode } from '@attractor/graph';
import { BackendConfigurationError } from './errors/backend-configuration-error.js';

/** The coding tools of coding-agent-loop-spec §3.3, in the order offered to the model. */
export const CORE_TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob'] as const;

/** A core tool name. */
export type CoreToolName = (typeof CORE_TOOL_NAMES)[number];

function isCoreToolName(name: string): name is CoreToolName {
  return (CORE_TOOL_NAMES as readonly string[]).includes(name);
}

/**
 * The core tools a node allows: all of them when it has no `tools` attribute (or `tools="all"`); none for
 * `tools="none"` (a pure text stage, also without `report_outcome`); otherwise the comma-separated list, e.g.
 * `tools="read_file, grep, glob"` for a read-only reviewer.
 *
 * @throws {BackendConfigurationError} (`setting: 'tools'`) for an unknown tool name, listing the valid ones.
 */
export function selectTools(node: GraphNode): readonly CoreToolName[] {
  const attribute = node.attributes.tools;
  const raw = attribute?.value.trim() ?? '';
  if (attribute === undefined || raw === '' || raw.toLowerCase() === 'all') return CORE_TOOL_NAMES;
  if (raw.toLowerCase() === 'none') return [];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isCoreToolName(name));
  if (unknown.length > 0) {
    const span = attribute.valueSpan;
    const where =
      span === undefined
        ? ''
        : span.filename === undefined
          ? ` (line ${span.start.line}, column ${span.start.column})`
          : ` (${span.filename}:${span.start.line}:${span.start.column})`;
    throw new BackendConfigurationError({
      setting: 'tools',
      nodeId: node.id,
      message: `Node "${node.id}" has tools="${raw}"${where}: unknown tool ${unknown.map((name) => `"${name}"`).join(', ')}. Use "none", "all", or a comma-separated list of ${CORE_TOOL_NAMES.join(', ')}.`,
    });
  }
  return CORE_TOOL_NAMES.filter((name) => names.includes(name));
}
