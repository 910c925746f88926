/**
 * The run graph as SVG (spec §9.5 `GET /pipelines/{id}/graph`): the pipeline's nodes and edges laid out by Graphviz
 * (WebAssembly, @viz-js/viz), each node filled by its status and the running node outlined. Every node's SVG group
 * carries `id="node-<node id>"` and `class="node status-<status>"` (plus `current`, `waiting`) so a page can find
 * and restyle it.
 *
 * A layout costs tens to hundreds of milliseconds for a few hundred nodes (and the first one also starts Graphviz's
 * WebAssembly, a few hundred more): drawings are kept by the exact DOT they lay out (the graph, the statuses, the
 * direction), so a finished or waiting run opened again is answered at once; {@link warmGraphRenderer} starts
 * Graphviz ahead of the first drawing.
 */
import { createHash } from 'node:crypto';
import type { Graph } from '@attractor/graph';
import { instance, type Viz } from '@viz-js/viz';
import { LRUCache } from 'lru-cache';

/** The status shown for a node: an outcome status, `running`, or `pending` (not run yet). */
export type NodeDisplayStatus =
  | 'pending'
  | 'running'
  | 'success'
  | 'partial_success'
  | 'retry'
  | 'fail'
  | 'skipped';

/** Fill and outline colours per status. */
const STATUS_STYLE = {
  pending: { fill: '#ffffff', color: '#8a94a6' },
  running: { fill: '#dbeafe', color: '#1d4ed8' },
  success: { fill: '#dcfce7', color: '#15803d' },
  partial_success: { fill: '#ecfccb', color: '#4d7c0f' },
  retry: { fill: '#ffedd5', color: '#c2410c' },
  fail: { fill: '#fee2e2', color: '#b91c1c' },
  skipped: { fill: '#f1f5f9', color: '#64748b' },
} satisfies Record<NodeDisplayStatus, { fill: string; color: string }>;

/** Colours of a running node that waits for a human answer. */
const WAITING_STYLE = { fill: '#fef3c7', color: '#b45309' };

/** Options of {@link renderRunGraph}. */
export interface RenderRunGraphOptions {
  readonly graph: Graph;
  /** The status of each node that has one; other nodes are `pending`. */
  readonly statuses: Readonly<Record<string, NodeDisplayStatus>>;
  /** The node running now, drawn with a thick outline. */
  readonly currentNodeId?: string;
  /** Running nodes that wait for a human answer: amber, with the extra class `waiting`. */
  readonly waitingNodeIds?: ReadonlySet<string>;
  /**
   * The direction of the ranks, replacing the graph's own `rankdir` (Graphviz: `TB` top to bottom, `LR` left to
   * right, `BT`, `RL`). Default: the graph's `rankdir`, else `TB`.
   */
  readonly rankdir?: RankDirection;
}

/** Graphviz's rank directions (the `rankdir` graph attribute). */
export type RankDirection = 'TB' | 'LR' | 'BT' | 'RL';

/** Whether `value` is one of Graphviz's rank directions. */
export function isRankDirection(value: string): value is RankDirection {
  return /^(LR|RL|TB|BT)$/.test(value);
}

let vizInstance: Promise<Viz> | undefined;

/** The most SVG text kept by {@link renderRunGraph}, in UTF-16 code units (about 16 MB): some 30 drawings of 500 nodes. */
const RENDERED_MAX_SIZE = 8 * 1024 * 1024;

/** Drawings by the SHA-256 of the DOT they lay out, least recently used dropped first. */
const rendered = new LRUCache<string, string>({
  maxSize: RENDERED_MAX_SIZE,
  sizeCalculation: (svg) => Math.max(1, svg.length),
});

/**
 * Starts Graphviz's WebAssembly instance now, if it has not started, so that the first drawing does not wait for it
 * (the server calls this when a browser loads the web UI). Never throws: a failure shows on the first drawing.
 */
export function warmGraphRenderer(): void {
  startedViz().catch(() => undefined);
}

/** Graphviz's WebAssembly instance, started on first use and shared by every drawing. */
function startedViz(): Promise<Viz> {
  vizInstance ??= instance();
  return vizInstance;
}

/** From this many nodes a graph is drawn ahead by {@link drawAhead}: smaller ones lay out in a few milliseconds. */
export const DRAW_AHEAD_MIN_NODES = 100;

/**
 * Up to this many nodes a graph is drawn ahead by {@link drawAhead}: a larger one could hold the server's thread for
 * seconds while nobody may ever open it (its page pays for its drawing when it opens).
 */
export const DRAW_AHEAD_MAX_NODES = 1000;

/**
 * Lays out the status-free drawing (`GET /pipelines/{id}/graph?statuses=none`, the web UI's) of a graph of
 * {@link DRAW_AHEAD_MIN_NODES} to {@link DRAW_AHEAD_MAX_NODES} nodes on a later turn of the event loop, so that the
 * first page opening a run of it is answered from the cache. `graphOf` is called then; its failure, or Graphviz's,
 * is ignored (the page's own request reports it).
 */
export function drawAhead(graphOf: () => Promise<Graph>): void {
  setTimeout(() => {
    graphOf()
      .then((graph) =>
        graph.nodes.size >= DRAW_AHEAD_MIN_NODES && graph.nodes.size <= DRAW_AHEAD_MAX_NODES
          ? renderRunGraph({ graph, statuses: {} })
          : undefined,
      )
      .catch(() => undefined);
  }, 0);
}

/**
 * Renders the graph with node colours by status, as an SVG document (UTF-8 text). The same graph, statuses and
 * direction give the same text, answered from a bounded cache after the first time.
 * @throws {Error} when Graphviz rejects the generated DOT (a bug: all values are escaped).
 */
export async function renderRunGraph(options: RenderRunGraphOptions): Promise<string> {
  const dot = runGraphDot(options);
  const key = createHash('sha256').update(dot).digest('base64');
  const kept = rendered.get(key);
  if (kept !== undefined) return kept;
  const viz = await startedViz();
  const svg = viz.renderString(dot, { format: 'svg' });
  rendered.set(key, svg);
  return svg;
}

/** The Graphviz DOT text {@link renderRunGraph} lays out: a clean copy of the graph plus status styling. Pure. */
export function runGraphDot(options: RenderRunGraphOptions): string {
  const { graph, statuses, currentNodeId } = options;
  const own = graph.attributes.rankdir?.value;
  const rankdir = options.rankdir ?? (own !== undefined && isRankDirection(own) ? own : 'TB');
  // The class tells a page which way the drawing goes (on the SVG's top group: `graph rankdir-LR`).
  const lines = [
    `digraph ${quote(graph.id)} {`,
    `  graph [rankdir=${rankdir}, class="rankdir-${rankdir}", bgcolor="transparent", pad="0.2", nodesep="0.4", ranksep="0.45"];`,
    '  node [fontname="Helvetica,Arial,sans-serif", fontsize="12", style="filled", penwidth="1.4"];',
    '  edge [fontname="Helvetica,Arial,sans-serif", fontsize="10", color="#64748b", fontcolor="#334155", arrowsize="0.7"];',
  ];
  for (const node of graph.nodes.values()) {
    const status =
      node.id === currentNodeId ? (statuses[node.id] ?? 'running') : (statuses[node.id] ?? 'pending');
    const waiting = status === 'running' && (options.waitingNodeIds?.has(node.id) ?? false);
    const style = waiting ? WAITING_STYLE : STATUS_STYLE[status];
    const current = node.id === currentNodeId;
    const shape = /^[A-Za-z]+$/.test(node.shape) ? node.shape : 'box';
    const attributes = [
      `label=${quote(node.label === '' ? node.id : node.label)}`,
      `shape=${shape}`,
      `id=${quote(`node-${node.id}`)}`,
      `class=${quote(`status-${status}${current ? ' current' : ''}${waiting ? ' waiting' : ''}`)}`,
      `fillcolor=${quote(style.fill)}`,
      `color=${quote(style.color)}`,
      ...(current ? ['penwidth="3.2"'] : []),
      ...(shape === 'box' ? ['style="filled,rounded"'] : []),
    ];
    lines.push(`  ${quote(node.id)} [${attributes.join(', ')}];`);
  }
  for (const edge of graph.edges) {
    const label = edge.label !== '' ? edge.label : edge.condition;
    const attributes = [`id=${quote(`edge-${edge.index}`)}`];
    if (label !== '') attributes.push(`label=${quote(label)}`);
    if (edge.condition !== '' && edge.label === '') attributes.push('fontcolor="#7c3aed"');
    lines.push(`  ${quote(edge.from)} -> ${quote(edge.to)} [${attributes.join(', ')}];`);
  }
  lines.push('}');
  return lines.join('\n');
}

/** A DOT double-quoted string; newlines become `\n` line breaks. */
function quote(value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replace(/\r?\n/g, '\\n')}"`;
}
