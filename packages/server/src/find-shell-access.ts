/**
 * Finds what in a submitted pipeline can run shell commands on the server's machine, so a server without
 * `allowTools` can refuse it (issue "Safety"): `tool` nodes, `tool_hooks.pre` / `tool_hooks.post` commands, and
 * manager-loop and subgraph nodes that load and run another DOT file.
 */

import type { Graph } from '@attractor/graph';
import { ApiError } from './errors/api-error.js';

/** One place in a graph that can run shell commands. */
export interface ShellAccess {
  /** The node, or undefined for a graph-level attribute. */
  readonly nodeId?: string;
  /** `child_pipeline`: a manager loop's `stack.child_dotfile`; `sub_pipeline`: a subgraph node's `graph_ref`. */
  readonly kind: 'tool' | 'tool_hooks' | 'child_pipeline' | 'sub_pipeline';
  /** 1-based source line, when known. */
  readonly line?: number;
}

/** Options of {@link findShellAccess}. */
export interface FindShellAccessOptions {
  readonly graph: Graph;
  /** The handler type a node resolves to (a registry may map custom types); default: `graph.handlerType(node)`. */
  readonly handlerTypeOf?: (nodeId: string) => string;
}

/** Every place in the graph that can run shell commands, in node order. Pure. */
export function findShellAccess(options: FindShellAccessOptions): ShellAccess[] {
  const { graph } = options;
  const found: ShellAccess[] = [];
  for (const node of graph.nodes.values()) {
    const type = options.handlerTypeOf?.(node.id) ?? graph.handlerType(node);
    const line = node.span?.start.line;
    const at = { nodeId: node.id, ...(line === undefined ? {} : { line }) };
    if (type === 'tool') found.push({ ...at, kind: 'tool' });
    if (node.attributes['tool_hooks.pre'] !== undefined || node.attributes['tool_hooks.post'] !== undefined)
      found.push({ ...at, kind: 'tool_hooks' });
    if (type === 'stack.manager_loop') found.push({ ...at, kind: 'child_pipeline' });
    if (type === 'subgraph') found.push({ ...at, kind: 'sub_pipeline' });
  }
  if (graph.settings.toolHooksPre !== undefined || graph.settings.toolHooksPost !== undefined)
    found.push({ kind: 'tool_hooks' });
  return found;
}

/** A one-line description of a {@link ShellAccess}, e.g. `tool node "build" (line 12)`. */
export function describeShellAccess(access: ShellAccess): string {
  const where = access.line === undefined ? '' : ` (line ${access.line})`;
  switch (access.kind) {
    case 'tool':
      return `tool node "${access.nodeId}"${where}`;
    case 'tool_hooks':
      return access.nodeId === undefined
        ? 'graph attribute tool_hooks.pre/tool_hooks.post'
        : `tool_hooks on node "${access.nodeId}"${where}`;
    case 'child_pipeline':
      return `manager-loop node "${access.nodeId}"${where} (runs a child pipeline file)`;
    case 'sub_pipeline':
      return `subgraph node "${access.nodeId}"${where} (runs the pipeline file of its graph_ref)`;
  }
}

/**
 * The 400 `TOOLS_NOT_ALLOWED` error of a server without `--allow-tools` for a pipeline with shell access.
 * @param access What {@link findShellAccess} found (not empty).
 */
export function toolsNotAllowedError(access: readonly ShellAccess[]): ApiError {
  return new ApiError({
    status: 400,
    code: 'TOOLS_NOT_ALLOWED',
    message: `This server refuses pipelines that can run shell commands, and this one has ${access
      .map(describeShellAccess)
      .join(', ')}. Restart the server with --allow-tools (startServer({ allowTools: true })) to allow them.`,
    details: { nodes: access.flatMap((entry) => (entry.nodeId === undefined ? [] : [entry.nodeId])) },
  });
}
