/**
 * Context fidelity and thread keys, spec §5.4.
 */
import type { FidelityMode, Graph, GraphEdge, GraphNode } from '@attractor/graph';

/** Options of {@link resolveFidelity} and {@link resolveThreadKey}. */
export interface ResolveFidelityOptions {
  /** The node about to run. */
  readonly node: GraphNode;
  /** The edge the walk arrived by, if any (none for the start node or after a jump). */
  readonly edge?: GraphEdge;
  readonly graph: Graph;
}

/** The runtime fallback when nothing sets a fidelity (spec §5.4). */
export const DEFAULT_FIDELITY: FidelityMode = 'compact';

/** Fidelity precedence (spec §5.4): incoming edge `fidelity` → node `fidelity` → graph `default_fidelity` → `compact`. */
export function resolveFidelity(options: ResolveFidelityOptions): FidelityMode {
  return (
    options.edge?.fidelity ??
    options.node.fidelity ??
    options.graph.settings.defaultFidelity ??
    DEFAULT_FIDELITY
  );
}

/** Options of {@link resolveThreadKey}. */
export interface ResolveThreadKeyOptions extends ResolveFidelityOptions {
  /** The node executed before this one, if any. */
  readonly previousNodeId?: string;
}

/**
 * The session key for `full` fidelity (spec §5.4): node `thread_id` → edge `thread_id` → graph default thread →
 * the class derived from the innermost enclosing subgraph → the previous node's id → the node's own id.
 */
export function resolveThreadKey(options: ResolveThreadKeyOptions): string {
  const { node, edge, graph } = options;
  const candidates = [
    node.threadId,
    edge?.threadId,
    graph.settings.defaultThread,
    node.subgraphClasses?.at(-1),
    options.previousNodeId,
    node.id,
  ];
  return candidates.find((candidate) => candidate !== undefined && candidate !== '') ?? node.id;
}
