/**
 * Where a graph's stages write the context through `out_map` (README "Typed data"), and which of those writes two
 * branches of one parallel block share: what the rules `out_map_state`, `out_map_conflict` and `output_unwritten`
 * read.
 */
import { findJoinNode } from '../find-join-node.js';
import type { Graph, GraphAttribute, GraphNode } from '../graph.js';
import { parseOutMap } from '../output-schema-declaration.js';
import type { LintContext } from './diagnostic.js';
import { reachableFrom } from './graph-traversal.js';

/** One `out_map` entry of a node: the context key it writes, where that key is in the attribute's value. */
export interface OutMapTarget {
  readonly node: GraphNode;
  readonly attribute: GraphAttribute;
  /** The context key written (`review.verdict`). */
  readonly key: string;
  /** The key's place in the decoded `out_map` value, for `spanInAttribute`. */
  readonly offset: number;
}

/** Every `out_map` target of the graph, in node order; a malformed `out_map` (rule `output_schema`) gives none. */
export function outMapTargets(graph: Graph): OutMapTarget[] {
  const targets: OutMapTarget[] = [];
  for (const node of graph.nodes.values()) {
    const attribute = node.attributes.out_map;
    if (attribute === undefined) continue;
    const parsed = parseOutMap(attribute.value);
    if (!parsed.ok) continue;
    for (const entry of parsed.entries)
      targets.push({ node, attribute, key: entry.key, offset: entry.keyOffset });
  }
  return targets;
}

/** A key that stages of two or more branches of one parallel block write through `out_map`, undeclared in `state`. */
export interface OutMapConflict {
  readonly key: string;
  /** The parallel node whose branches write it. */
  readonly parallelId: string;
  /** Its join, when the graph has one. */
  readonly joinId: string | undefined;
  /** The writes, in node order: at least two, from different branches. */
  readonly writes: readonly OutMapTarget[];
}

/**
 * The keys that two or more branches of a parallel block write through `out_map` and that `state` does not declare:
 * with `state` their join fails when the branches write different values (README "Declared state and parallel
 * joins"); without it the fan-in keeps the selected branch's value and drops the others'.
 */
export function outMapConflicts(graph: Graph, context: LintContext): OutMapConflict[] {
  const targets = outMapTargets(graph);
  if (targets.length < 2) return [];
  const conflicts: OutMapConflict[] = [];
  for (const node of graph.nodes.values()) {
    if (!context.traitsOf(node).fansOut) continue;
    const joinId = findJoinNode(graph, node.id, { traitsOf: (other) => context.traitsOf(other) });
    const avoid = new Set([node.id, ...(joinId === undefined ? [] : [joinId])]);
    // The branch of each node: the first outgoing edge of the parallel node that reaches it.
    const branchOf = new Map<string, string>();
    for (const edge of graph.outgoing(node.id)) {
      for (const id of reachableFrom(graph, edge.to, { avoid }))
        if (!branchOf.has(id)) branchOf.set(id, edge.to);
    }
    const writesByKey = new Map<string, OutMapTarget[]>();
    for (const target of targets) {
      if (!branchOf.has(target.node.id) || Object.hasOwn(graph.settings.state, target.key)) continue;
      writesByKey.set(target.key, [...(writesByKey.get(target.key) ?? []), target]);
    }
    for (const [key, writes] of writesByKey) {
      if (new Set(writes.map((write) => branchOf.get(write.node.id))).size < 2) continue;
      conflicts.push({ key, parallelId: node.id, joinId, writes });
    }
  }
  return conflicts;
}
