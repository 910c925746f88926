import { GRAPHVIZ_ATTRIBUTES, type Graph, type GraphAttributes } from '@attractor/graph';
import type { StageState } from '../inspect/summarize-run.js';

/** How `render --run` colours a node: by its latest state in the run. */
export type RenderStatus = 'succeeded' | 'failed' | 'running' | 'not_reached';

/** Fill colours per {@link RenderStatus}. */
export const STATUS_FILL: Readonly<Record<RenderStatus, string>> = {
  succeeded: '#c8f2c2',
  failed: '#f7c1c1',
  running: '#fff1a8',
  not_reached: '#eeeeee',
};

/** Maps a stage state to the colour class of `render --run`. */
export function renderStatusOf(state: StageState | undefined): RenderStatus {
  if (state === undefined || state === 'skipped') return 'not_reached';
  if (state === 'fail') return 'failed';
  if (
    state === 'running' ||
    state === 'waiting' ||
    state === 'interrupted' ||
    state === 'cancelled' ||
    state === 'retry'
  )
    return 'running';
  return 'succeeded';
}

/**
 * Writes a Graphviz-compatible DOT document for a pipeline: its nodes with label and shape, its edges with label
 * (or condition), and the Graphviz presentation attributes the file sets. Attractor-only keys (prompts,
 * `human.default_choice`, ...) are left out, and every id and value is quoted, so Graphviz accepts the output
 * whatever dialect the source used. With `statuses`, nodes are filled by their state in a run.
 */
export function toGraphvizDot(
  graph: Graph,
  options: { readonly statuses?: ReadonlyMap<string, StageState> } = {},
): string {
  const lines: string[] = [`digraph ${quote(graph.id)} {`];
  const graphAttributes = presentation(graph.attributes, ['label']);
  if (graph.settings.label !== '' && graphAttributes.label === undefined)
    graphAttributes.label = graph.settings.label;
  if (graphAttributes.label !== undefined && graphAttributes.labelloc === undefined)
    graphAttributes.labelloc = 't';
  if (graphAttributes.fontname === undefined) graphAttributes.fontname = 'Helvetica';
  lines.push(`  graph [${attributeList(graphAttributes)}]`);
  lines.push('  node [fontname="Helvetica", fontsize=12]');
  lines.push('  edge [fontname="Helvetica", fontsize=10]');
  for (const node of graph.nodes.values()) {
    const attributes = presentation(node.attributes, []);
    attributes.label = node.label;
    attributes.shape = node.shape;
    if (options.statuses !== undefined) {
      const status = renderStatusOf(options.statuses.get(node.id));
      attributes.style = attributes.style === undefined ? 'filled' : `${attributes.style},filled`;
      attributes.fillcolor = STATUS_FILL[status];
      // Graphviz adds the class to the node's SVG group: <g class="node succeeded">.
      attributes.class = status;
      if (status === 'not_reached') attributes.fontcolor = '#777777';
    }
    lines.push(`  ${quote(node.id)} [${attributeList(attributes)}]`);
  }
  for (const edge of graph.edges) {
    const attributes = presentation(edge.attributes, []);
    const label = edge.label !== '' ? edge.label : edge.condition;
    if (label !== '') attributes.label = label;
    if (edge.loopRestart) attributes.style = 'dashed';
    lines.push(
      `  ${quote(edge.from)} -> ${quote(edge.to)}${Object.keys(attributes).length === 0 ? '' : ` [${attributeList(attributes)}]`}`,
    );
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function presentation(attributes: GraphAttributes, extra: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, attribute] of Object.entries(attributes)) {
    if (GRAPHVIZ_ATTRIBUTES.has(key) || extra.includes(key)) result[key] = attribute.value;
  }
  return result;
}

function attributeList(attributes: Readonly<Record<string, string>>): string {
  return Object.entries(attributes)
    .map(([key, value]) => `${quote(key)}=${quote(value)}`)
    .join(', ');
}

/** A DOT double-quoted string. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}
