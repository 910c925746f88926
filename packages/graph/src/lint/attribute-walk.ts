/**
 * Visits every distinct written attribute of a graph once, for the attribute-level lint rules.
 * An attribute inherited from a `node [...]`/`edge [...]` default block is shared by many nodes but
 * written once, so it is visited once, with the first node or edge it applies to.
 */
import type { AttributeScope } from '../attribute-schema.js';
import type { Graph, GraphAttribute } from '../graph.js';
import type { Diagnostic } from './diagnostic.js';

/** Who an attribute belongs to, for messages and the diagnostic's node/edge fields. */
export interface AttributeOwner {
  readonly scope: AttributeScope;
  /** `Node "plan"`, `Edge a -> b`, `Graph "G"`, with "(default block)" for inherited attributes. */
  readonly description: string;
  readonly where: Pick<Diagnostic, 'nodeId' | 'edge'>;
}

/** The visits of `forEachAttribute`, listed once per graph (the graph never changes; five rules walk them). */
const visitsByGraph = new WeakMap<Graph, ReadonlyArray<readonly [GraphAttribute, AttributeOwner]>>();

/** Calls `visit` once per distinct attribute of the graph, its nodes and its edges, in that order. */
export function forEachAttribute(
  graph: Graph,
  visit: (attribute: GraphAttribute, owner: AttributeOwner) => void,
): void {
  let visits = visitsByGraph.get(graph);
  if (visits === undefined) {
    visits = attributeVisits(graph);
    visitsByGraph.set(graph, visits);
  }
  for (const [attribute, owner] of visits) visit(attribute, owner);
}

/**
 * Drops the attribute listing kept for `graph`: `validate` calls it when its rules are done, so a graph that lives
 * on (during a run) does not keep the listing (about 150 bytes per attribute).
 */
export function forgetAttributeVisits(graph: Graph): void {
  visitsByGraph.delete(graph);
}

function attributeVisits(graph: Graph): Array<readonly [GraphAttribute, AttributeOwner]> {
  const visits: Array<readonly [GraphAttribute, AttributeOwner]> = [];
  const seen = new Set<unknown>();
  const once = (attribute: GraphAttribute, owner: () => AttributeOwner) => {
    const identity = attribute.keySpan ? attribute.keySpan.start.offset : attribute;
    if (seen.has(identity)) return;
    seen.add(identity);
    visits.push([attribute, owner()]);
  };
  const suffix = (attribute: GraphAttribute) =>
    attribute.origin === 'default' ? ' (via a default block)' : '';
  for (const attribute of Object.values(graph.attributes)) {
    once(attribute, () => ({ scope: 'graph', description: `Graph "${graph.id}"`, where: {} }));
  }
  for (const node of graph.nodes.values()) {
    for (const attribute of Object.values(node.attributes)) {
      once(attribute, () => ({
        scope: 'node',
        description: `Node "${node.id}"${suffix(attribute)}`,
        where: { nodeId: node.id },
      }));
    }
  }
  for (const edge of graph.edges) {
    for (const attribute of Object.values(edge.attributes)) {
      once(attribute, () => ({
        scope: 'edge',
        description: `Edge ${edge.from} -> ${edge.to}${suffix(attribute)}`,
        where: { edge: { from: edge.from, to: edge.to } },
      }));
    }
  }
  return visits;
}
