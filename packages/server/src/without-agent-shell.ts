/**
 * A graph transform (spec §9.3) for servers without `allowTools`: removes the `shell` coding tool from every node,
 * so an LLM stage of a submitted pipeline cannot run shell commands either (its prompt is the submitter's text).
 * The other coding tools (read, write, edit, grep, glob: confined to the run's working directory) stay.
 */
import { CODING_TOOL_NAMES, type Graph, type GraphNode, type Transform } from '@attractor/graph';

/** Built-in handler types that never call the LLM backend. */
const NO_BACKEND_TYPES = new Set(['start', 'exit', 'wait.human', 'conditional', 'parallel', 'tool']);

/**
 * Removes `shell` from the `tools` of each node that may call the LLM backend (absent or `all` means every tool).
 * Pure.
 */
export const withoutAgentShellTransform: Transform = {
  name: 'without_agent_shell',
  apply(graph: Graph): Graph {
    let changed = false;
    const nodes: GraphNode[] = [...graph.nodes.values()].map((node) => {
      const raw = node.attributes.tools?.value.trim().toLowerCase() ?? 'all';
      if (raw === 'none' || NO_BACKEND_TYPES.has(graph.handlerType(node))) return node;
      const listed =
        raw === '' || raw === 'all'
          ? [...CODING_TOOL_NAMES]
          : raw
              .split(',')
              .map((name) => name.trim())
              .filter((name) => name !== '');
      if (!listed.includes('shell')) return node;
      changed = true;
      const kept = listed.filter((name) => name !== 'shell');
      return {
        ...node,
        attributes: {
          ...node.attributes,
          tools: {
            key: 'tools',
            value: kept.length === 0 ? 'none' : kept.join(','),
            kind: 'derived',
            origin: 'transform',
          },
        },
      };
    });
    return changed ? graph.with({ nodes }) : graph;
  },
};
