/**
 * The node attribute `tools` (docs/architecture.md "The AI-SDK backend"): which coding tools a stage may use.
 * The typed value comes from `@attractor/graph` (`nodeAttribute(node, 'tools')`), so the backend and lint
 * agree.
 */
import { CODING_TOOL_NAMES, type CodingToolName, type GraphNode, nodeAttribute } from '@attractor/graph';
import { BackendConfigurationError } from './errors/backend-configuration-error.js';

/**
 * The coding tools a node allows: all of `read_file`, `write_file`, `edit_file`, `shell`, `grep`, `glob` when it
 * has no `tools` attribute (or `tools="all"`); none for `tools="none"` (a pure text stage, also without
 * `report_outcome`); otherwise the comma-separated list, e.g. `tools="read_file, grep, glob"` for a read-only
 * reviewer. Always in the canonical order above.
 *
 * @throws {BackendConfigurationError} (`setting: 'tools'`) for an unknown tool name, listing the valid ones
 *   (`validate()` reports the same as lint rule `attribute_type`).
 */
export function selectTools(node: GraphNode): readonly CodingToolName[] {
  const attribute = node.attributes.tools;
  if (attribute === undefined || attribute.value.trim() === '') return CODING_TOOL_NAMES;
  const typed = nodeAttribute(node, 'tools');
  if (typed !== undefined) return CODING_TOOL_NAMES.filter((name) => typed.includes(name));
  const raw = attribute.value.trim();
  const unknown = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && !(CODING_TOOL_NAMES as readonly string[]).includes(name));
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
    message: `Node "${node.id}" has tools="${raw}"${where}: unknown tool ${unknown.map((name) => `"${name}"`).join(', ')}. Use "none", "all", or a comma-separated list of ${CODING_TOOL_NAMES.join(', ')}.`,
  });
}
