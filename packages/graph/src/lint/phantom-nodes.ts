import type { Graph } from '../graph.js';
import { didYouMean } from './did-you-mean.js';

/**
 * The likely-mistyped edge ends of `graph` (spec §7.2 `edge_target_exists`): nodes that exist only
 * because an edge mentions them (`declared === false`) and whose id is within a small edit distance
 * of a declared node's id (see `didYouMean`).
 *
 * @returns a map from the phantom node's id to the declared id it probably meant; empty when none.
 */
export function phantomNodes(graph: Graph): Map<string, string> {
  const nodes = [...graph.nodes.values()];
  const declaredIds = nodes.filter((node) => node.declared === true).map((node) => node.id);
  const phantoms = new Map<string, string>();
  for (const node of nodes) {
    if (node.declared !== false) continue;
    const suggestion = didYouMean(node.id, declaredIds);
    if (suggestion !== undefined) phantoms.set(node.id, suggestion);
  }
  return phantoms;
}
