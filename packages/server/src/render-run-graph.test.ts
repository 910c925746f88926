import { prepareGraph } from '@attractor/graph';
import { describe, expect, it, vi } from 'vitest';
import {
  DRAW_AHEAD_MAX_NODES,
  DRAW_AHEAD_MIN_NODES,
  drawAhead,
  renderRunGraph,
  runGraphDot,
  warmGraphRenderer,
} from './render-run-graph.js';

/** The real Graphviz, counting its layouts. */
const layouts = vi.hoisted(() => ({ count: 0 }));
vi.mock('@viz-js/viz', async (importOriginal) => {
  const real = await importOriginal<typeof import('@viz-js/viz')>();
  return {
    ...real,
    instance: async () => {
      const viz = await real.instance();
      return new Proxy(viz, {
        get(target, name, receiver) {
          if (name !== 'renderString') return Reflect.get(target, name, receiver);
          return (...args: Parameters<typeof viz.renderString>) => {
            layouts.count++;
            return target.renderString(...args);
          };
        },
      });
    },
  };
});

function graphOf(source: string) {
  const { graph } = prepareGraph(source, { filename: 'p.dot' });
  if (graph === undefined) throw new Error('fixture does not parse');
  return graph;
}

const graph = graphOf(`digraph g {
  rankdir = LR
  start [shape=Mdiamond]
  ask [shape=hexagon, label="Say \\"yes\\" <now> & go"]
  done [shape=Msquare]
  start -> ask
  ask -> done [label="[Y] Yes"]
  ask -> start [condition="outcome=fail"]
}`);

describe('runGraphDot / renderRunGraph (spec §9.5 graph endpoint)', () => {
  it('styles nodes by status, marks the current and waiting node, and keeps rankdir', () => {
    const dot = runGraphDot({
      graph,
      statuses: { start: 'success' },
      currentNodeId: 'ask',
      waitingNodeIds: new Set(['ask']),
    });
    expect(dot).toContain('rankdir=LR');
    expect(dot).toContain('"start" [label="start", shape=Mdiamond, id="node-start", class="status-success"');
    expect(dot).toContain('class="status-running current waiting"');
    expect(dot).toContain('penwidth="3.2"');
    expect(dot).toContain('"done" [label="done", shape=Msquare, id="node-done", class="status-pending"');
    expect(dot).toContain('"ask" -> "start" [id="edge-2", label="outcome=fail", fontcolor="#7c3aed"]');
  });

  it('renders SVG whose labels are escaped text', async () => {
    const svg = await renderRunGraph({ graph, statuses: { start: 'fail' } });
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('<g id="node&#45;start" class="node status&#45;fail">');
    expect(svg).toContain('fill="#fee2e2"');
    expect(svg).toContain('Say &quot;yes&quot; &lt;now&gt; &amp; go');
    expect(svg).not.toContain('<now>');
  });

  it('lays out the same graph, statuses and direction once; another status or direction is laid out again', async () => {
    warmGraphRenderer();
    const before = layouts.count;
    const first = await renderRunGraph({ graph, statuses: { start: 'success' }, currentNodeId: 'ask' });
    const again = await renderRunGraph({ graph, statuses: { start: 'success' }, currentNodeId: 'ask' });
    expect(again).toBe(first);
    expect(layouts.count).toBe(before + 1);
    const failed = await renderRunGraph({ graph, statuses: { start: 'fail' }, currentNodeId: 'ask' });
    expect(failed).toContain('class="node status&#45;fail"');
    const across = await renderRunGraph({
      graph,
      statuses: { start: 'success' },
      currentNodeId: 'ask',
      rankdir: 'TB',
    });
    expect(across).toContain('rankdir&#45;TB');
    expect(layouts.count).toBe(before + 3);
  });

  it('draws no link wrapper per node: the page names nodes itself', async () => {
    const svg = await renderRunGraph({ graph, statuses: {} });
    expect(svg).not.toContain('<a ');
    expect(svg).toContain('<g id="node&#45;done" class="node status&#45;pending">');
  });

  it('draws a large graph ahead, status-free, so that its first drawing is answered from the cache; not a small or a huge one', async () => {
    const stages = Array.from({ length: DRAW_AHEAD_MIN_NODES }, (_, index) => `s${index}`);
    const large = graphOf(
      `digraph large {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> ${stages.join(' -> ')} -> done\n}`,
    );
    const small = graphOf(
      'digraph small {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> work -> done\n}',
    );
    const huge = graphOf(
      `digraph huge {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> ${Array.from({ length: DRAW_AHEAD_MAX_NODES }, (_, index) => `h${index}`).join(' -> ')} -> done\n}`,
    );
    const before = layouts.count;
    drawAhead(async () => small);
    drawAhead(async () => huge);
    drawAhead(async () => large);
    // Timers run in order: once the large graph is laid out, the small and the huge ones were passed over.
    await expect.poll(() => layouts.count, { timeout: 60_000 }).toBe(before + 1);
    const svg = await renderRunGraph({ graph: large, statuses: {} });
    expect(svg).toContain('<g id="node&#45;s99" class="node status&#45;pending">');
    expect(layouts.count).toBe(before + 1);
    await renderRunGraph({ graph: small, statuses: {} });
    expect(layouts.count).toBe(before + 2);
    await renderRunGraph({ graph: huge, statuses: {} });
    expect(layouts.count).toBe(before + 3);
  });
});
