import { type AimAtEdgeOptions, aimAtEdge, Context, selectEdge } from '@attractor/engine';
import { type Graph, type GraphEdge, type GraphNode, prepareGraph } from '@attractor/graph';

/** What a node of a simulated run can return to route: the controls of `aimAtEdge` for its handler type. */
type RouteControls = Pick<
  AimAtEdgeOptions,
  'statuses' | 'statusesOfConditions' | 'setsContext' | 'routingHints'
>;

/**
 * What a node of a simulated run (`attractor test`: LLM stages, tool nodes and plug-in handlers simulated) can return
 * to route: `fans-out` for a parallel node, whose edges are all taken.
 */
export function routeControls(graph: Graph, node: GraphNode): RouteControls | 'fans-out' {
  switch (graph.handlerType(node)) {
    case 'parallel':
      return 'fans-out';
    case 'start':
    case 'exit':
      return { statuses: ['success'], statusesOfConditions: false, setsContext: false, routingHints: false };
    case 'conditional':
      return { statuses: ['success'], statusesOfConditions: false, setsContext: true, routingHints: true };
    case 'wait.human':
      // A choice gives its label and target (spec §4.6).
      return { statuses: ['success'], statusesOfConditions: false, setsContext: false, routingHints: true };
    case 'parallel.fan_in':
    case 'subgraph':
    case 'stack.manager_loop':
      // Their outcome is their branches' or child's; a test run takes it as any status their edges test.
      return { statuses: ['success'], statusesOfConditions: true, setsContext: false, routingHints: false };
    default:
      return { statuses: ['success'], statusesOfConditions: true, setsContext: true, routingHints: true };
  }
}

/**
 * Why no simulated run can take `edge`, or `undefined` when one can (its node may return something that routes
 * along it, whatever the run's context): its condition can never hold for what its node returns, or another edge of
 * the node is always chosen first (named, with why).
 */
export function whyEdgeCannotBeTaken(graph: Graph, edge: GraphEdge): string | undefined {
  const node = graph.node(edge.from);
  if (node === undefined) return `its node "${edge.from}" does not exist`;
  const controls = routeControls(graph, node);
  if (controls === 'fans-out') return undefined;
  const context = new Context();
  if (aimAtEdge({ graph, path: [edge], context, ...controls }) !== undefined) return undefined;
  // Alone, with no other edge beside it: does the condition ever hold?
  const alone = edgeAlone(edge);
  const aim =
    alone === undefined
      ? undefined
      : aimAtEdge({ graph: alone, path: [alone.edges[0]!], context, ...controls });
  const kind = graph.handlerType(node);
  if (aim === undefined) {
    return edge.condition.trim() === ''
      ? `a ${kind} node cannot choose among its unconditional edges`
      : `its condition never holds for what a ${kind} node returns`;
  }
  const values = new Map<string, unknown>(Object.entries(aim.contextUpdates));
  values.set('outcome', aim.status);
  const winner = selectEdge({
    edges: graph.outgoing(edge.from),
    outcome: {
      status: aim.status,
      ...(aim.preferredLabel === undefined ? {} : { preferredLabel: aim.preferredLabel }),
      ...(aim.suggestedNextIds === undefined ? {} : { suggestedNextIds: aim.suggestedNextIds }),
    },
    context: { get: (key) => (values.has(key) ? values.get(key) : context.get(key)) },
    conditionalOnly: aim.status === 'fail',
  })?.edge;
  if (winner === undefined || winner.index === edge.index) return `nothing a ${kind} node returns takes it`;
  const described = `${winner.from} -> ${winner.to}${winner.condition.trim() === '' ? '' : ` [${winner.condition}]`}`;
  const why =
    winner.condition.trim() !== '' && edge.condition.trim() === ''
      ? 'a matching condition comes before every unconditional edge'
      : winner.weight !== edge.weight
        ? `it weighs more (${winner.weight} > ${edge.weight})`
        : `equal weights go to the target id first in order ("${winner.to}" before "${edge.to}")`;
  return `whenever it could be taken, ${described} is chosen instead: ${why} (spec §3.3)`;
}

/** A graph of the edge alone (with its condition, label and weight), to ask whether its condition can hold at all. */
function edgeAlone(edge: GraphEdge): Graph | undefined {
  const quote = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const source = `digraph Alone {\n  a -> b [condition=${quote(edge.condition)}, label=${quote(edge.label)}, weight=${edge.weight}]\n}`;
  return prepareGraph(source).graph;
}
