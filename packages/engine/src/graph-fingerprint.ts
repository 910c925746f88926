/**
 * The identity of a graph for resume (docs/architecture.md "Run directory": source sha256 in the manifest).
 */
import { createHash } from 'node:crypto';
import type { Graph } from '@attractor/graph';

/**
 * sha256 (hex) of the graph's DOT source when it has one, else of a JSON serialisation of its id, attributes,
 * settings, nodes and edges (source spans left out). Resume refuses a checkpoint whose fingerprint differs.
 */
export function graphFingerprint(graph: Graph): string {
  const hash = createHash('sha256');
  if (graph.source !== undefined) return hash.update(graph.source).digest('hex');
  const canonical = {
    id: graph.id,
    attributes: graph.attributes,
    settings: graph.settings,
    nodes: [...graph.nodes.values()],
    edges: graph.edges,
  };
  return hash.update(JSON.stringify(canonical, dropSpans)).digest('hex');
}

function dropSpans(key: string, value: unknown): unknown {
  return key === 'span' || key === 'keySpan' || key === 'valueSpan' ? undefined : value;
}
