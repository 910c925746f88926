/**
 * Visits every distinct written attribute of a graph once, for the attribute-level lint rules.
 * An attribute inherited from a `node [...]`/`edge [...]` default block is shared by many nodes but
 * written once, so it is visited once, with the first node or edge it applies to.
 */
import type { AttributeScope } from '../attribute-schema.js';
import type { Graph, GraphAttribute, GraphAttributes, GraphEdge, GraphNode } from '../graph.js';
import type { Diagnostic } from './diagnostic.js';

/** Who an attribute belongs to, for messages and the diagnostic's node/edge fields. */
export interface AttributeOwner {
  readonly scope: AttributeScope;
  /** `Node "plan"`, `Edge a -> b`, `Graph "G"`, with "(default block)" for inherited attributes. */
  readonly description: string;
  readonly where: Pick<Diagnostic, 'nodeId' | 'edge'>;
}

/** The attributes `forEachAttribute` visits and their owners, side by side (index `i` of each goes together). */
interface Visits {
  readonly attributes: readonly GraphAttribute[];
  readonly owners: readonly AttributeOwner[];
}

/** The visits of `forEachAttribute`, listed once per graph (the graph never changes; five rules walk them). */
const visitsByGraph = new WeakMap<Graph, Visits>();

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
  const { attributes, owners } = visits;
  for (let index = 0; index < attributes.length; index++) visit(attributes[index]!, owners[index]!);
}

/**
 * Drops the attribute listing kept for `graph`: `validate` calls it when its rules are done, so a graph that lives
 * on (during a run) does not keep the listing (about 20 bytes per attribute).
 */
export function forgetAttributeVisits(graph: Graph): void {
  visitsByGraph.delete(graph);
}

const VIA_DEFAULT = ' (via a default block)';

/**
 * The owner of the attributes of one node or edge (one for its own, one for those from a default block). The
 * description and `where` are made only when read: the rules read them only for what they report, and a large
 * graph has one owner per node and edge.
 */
class EntityOwner implements AttributeOwner {
  readonly scope: 'node' | 'edge';
  readonly #entity: GraphNode | GraphEdge;
  readonly #viaDefault: boolean;

  constructor(scope: 'node' | 'edge', entity: GraphNode | GraphEdge, viaDefault: boolean) {
    this.scope = scope;
    this.#entity = entity;
    this.#viaDefault = viaDefault;
  }

  get description(): string {
    const suffix = this.#viaDefault ? VIA_DEFAULT : '';
    const entity = this.#entity;
    return 'id' in entity ? `Node "${entity.id}"${suffix}` : `Edge ${entity.from} -> ${entity.to}${suffix}`;
  }

  get where(): Pick<Diagnostic, 'nodeId' | 'edge'> {
    const entity = this.#entity;
    return 'id' in entity ? { nodeId: entity.id } : { edge: { from: entity.from, to: entity.to } };
  }
}

/** The owner `forEachAttribute` gives an attribute of `node` (for a rule that finds it another way). */
export function nodeAttributeOwner(node: GraphNode, attribute: GraphAttribute): AttributeOwner {
  return new EntityOwner('node', node, attribute.origin === 'default');
}

/**
 * Tells whether an attribute is met for the first time. Its identity is the offset of its key in the source (the
 * same written attribute can be several objects) or, without a key span, the object. The offsets go in a bit set
 * the size of the source: a `Set` of every attribute of a large graph is megabytes of hash table.
 */
function firstVisitTracker(source: string | undefined): (attribute: GraphAttribute) => boolean {
  const length = source?.length ?? 0;
  const seenOffsets = new Uint32Array((length >>> 5) + 1);
  const seenOthers = new Set<unknown>();
  return (attribute) => {
    const offset = keyOffset(attribute);
    if (offset !== undefined && offset >= 0 && offset < length) {
      const word = offset >>> 5;
      const bit = 1 << (offset & 31);
      if ((seenOffsets[word]! & bit) !== 0) return false;
      seenOffsets[word]! |= bit;
      return true;
    }
    const identity = offset ?? attribute;
    if (seenOthers.has(identity)) return false;
    seenOthers.add(identity);
    return true;
  };
}

/**
 * Where an attribute's key starts in the source, `undefined` without a key span. Read from the parser's span
 * without working out its line and column (`startOffset` of `@attractor/dot`'s spans), which a rule visiting every
 * attribute would pay for each.
 */
export function keyOffset(attribute: GraphAttribute): number | undefined {
  const span = attribute.keySpan;
  if (span === undefined) return undefined;
  const offset = (span as { readonly startOffset?: unknown }).startOffset;
  return typeof offset === 'number' ? offset : span.start.offset;
}

function attributeVisits(graph: Graph): Visits {
  const attributes: GraphAttribute[] = [];
  const owners: AttributeOwner[] = [];
  const firstVisit = firstVisitTracker(graph.source);
  const walk = (record: GraphAttributes, scope: 'node' | 'edge', entity: GraphNode | GraphEdge) => {
    let own: AttributeOwner | undefined;
    let viaDefault: AttributeOwner | undefined;
    for (const key in record) {
      const attribute = record[key]!;
      if (!firstVisit(attribute)) continue;
      attributes.push(attribute);
      if (attribute.origin === 'default') {
        viaDefault ??= new EntityOwner(scope, entity, true);
        owners.push(viaDefault);
      } else {
        own ??= new EntityOwner(scope, entity, false);
        owners.push(own);
      }
    }
  };
  const graphOwner: AttributeOwner = { scope: 'graph', description: `Graph "${graph.id}"`, where: {} };
  for (const attribute of Object.values(graph.attributes)) {
    if (!firstVisit(attribute)) continue;
    attributes.push(attribute);
    owners.push(graphOwner);
  }
  for (const node of graph.nodes.values()) walk(node.attributes, 'node', node);
  for (const edge of graph.edges) walk(edge.attributes, 'edge', edge);
  return { attributes, owners };
}
