/**
 * Finds what in a submitted pipeline can run shell commands on the server's machine, so a server without
 * `allowTools` can refuse it (issue "Safety"): nodes whose handler runs a command (`tool`, or any handler that
 * declares `runsCommand`), `tool_hooks.pre` / `tool_hooks.post` commands, and nodes whose handler runs another DOT
 * file (`supervisesChild`, `runsSubgraph`: manager loops and subgraph nodes). What a node's handler does comes from
 * the capabilities it declares (`defineHandler`), never from its type name, so a plug-in handler registered under any
 * type that declares `runsCommand` is found too.
 */

import { type Graph, type HandlerTraits, traitsOfType } from '@attractor/graph';
import { ApiError } from './errors/api-error.js';

/** One place in a graph that can run shell commands. */
export interface ShellAccess {
  /** The node, or undefined for a graph-level attribute. */
  readonly nodeId?: string;
  /** `child_pipeline`: a manager loop's `stack.child_dotfile`; `sub_pipeline`: a subgraph node's `graph_ref`. */
  readonly kind: 'tool' | 'tool_hooks' | 'child_pipeline' | 'sub_pipeline';
  /** 1-based source line, when known. */
  readonly line?: number;
  /** For `tool`: the handler type the node resolves to (`tool`, or a plug-in's type such as `deploy`). */
  readonly handlerType?: string;
}

/** Options of {@link findShellAccess}. */
export interface FindShellAccessOptions {
  readonly graph: Graph;
  /** The handler type a node resolves to (a registry may map custom types); default: `graph.handlerType(node)`. */
  readonly handlerTypeOf?: (nodeId: string) => string;
  /**
   * The capabilities the registered handlers declare, by handler type (`HandlerRegistry.lintInfo()`); a type not in
   * it has the spec's built-in capabilities (`SPEC_HANDLER_TRAITS`), else none. Default: the built-in ones only.
   */
  readonly handlers?: ReadonlyMap<string, HandlerTraits>;
}

/** Every place in the graph that can run shell commands, in node order. Pure. */
export function findShellAccess(options: FindShellAccessOptions): ShellAccess[] {
  const { graph } = options;
  const found: ShellAccess[] = [];
  for (const node of graph.nodes.values()) {
    const type = options.handlerTypeOf?.(node.id) ?? graph.handlerType(node);
    const traits = traitsOfType(type, options.handlers);
    const line = node.span?.start.line;
    const at = { nodeId: node.id, ...(line === undefined ? {} : { line }) };
    if (traits.runsCommand === true) found.push({ ...at, kind: 'tool', handlerType: type });
    if (node.attributes['tool_hooks.pre'] !== undefined || node.attributes['tool_hooks.post'] !== undefined)
      found.push({ ...at, kind: 'tool_hooks' });
    if (traits.supervisesChild === true) found.push({ ...at, kind: 'child_pipeline' });
    if (traits.runsSubgraph === true) found.push({ ...at, kind: 'sub_pipeline' });
  }
  if (graph.settings.toolHooksPre !== undefined || graph.settings.toolHooksPost !== undefined)
    found.push({ kind: 'tool_hooks' });
  return found;
}

/**
 * A one-line description of a {@link ShellAccess}, e.g. `tool node "build" (line 12)`, or for a plug-in handler that
 * declares `runsCommand`, `node "ship" (line 3), whose "deploy" handler runs commands`.
 */
export function describeShellAccess(access: ShellAccess): string {
  const where = access.line === undefined ? '' : ` (line ${access.line})`;
  switch (access.kind) {
    case 'tool':
      return access.handlerType === undefined || access.handlerType === 'tool'
        ? `tool node "${access.nodeId}"${where}`
        : `node "${access.nodeId}"${where}, whose "${access.handlerType}" handler runs commands`;
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
