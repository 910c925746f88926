/**
 * The attributes that hold a condition (spec §10): every edge `condition` and every node
 * `manager.stop_condition`, for the rules that read conditions.
 */
import type { Graph, GraphAttribute } from '../graph.js';
import type { Diagnostic } from './diagnostic.js';

/** One non-blank condition attribute, with what a diagnostic about it names. */
export interface ConditionAttribute {
  readonly attribute: GraphAttribute;
  /** The edge or node the attribute belongs to, spread into a diagnostic. */
  readonly where: Pick<Diagnostic, 'nodeId' | 'edge'>;
  /** How a message names the owner: `Edge a -> b` or `Node "boss"`. */
  readonly owner: string;
}

/** The non-blank edge `condition`s (in edge order), then the node `manager.stop_condition`s (in node order). */
export function conditionAttributes(graph: Graph): ConditionAttribute[] {
  const found: ConditionAttribute[] = [];
  for (const edge of graph.edges) {
    const attribute = edge.attributes.condition;
    if (attribute === undefined || attribute.value.trim() === '') continue;
    found.push({
      attribute,
      where: { edge: { from: edge.from, to: edge.to } },
      owner: `Edge ${edge.from} -> ${edge.to}`,
    });
  }
  for (const node of graph.nodes.values()) {
    const attribute = node.attributes['manager.stop_condition'];
    if (attribute === undefined || attribute.value.trim() === '') continue;
    found.push({ attribute, where: { nodeId: node.id }, owner: `Node "${node.id}"` });
  }
  return found;
}
