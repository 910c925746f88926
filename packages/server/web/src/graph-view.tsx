/**
 * The run's graph: the SVG the server lays out with Graphviz (WebAssembly) is fetched once per run view, then every
 * node is restyled in place from the event stream — only the nodes whose status changed are touched, so a
 * 500-node graph updates in well under a second. Each node is a keyboard-focusable button; Enter or a click opens
 * its stage pane.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { apiText, runPath } from './api.js';
import { ErrorNote } from './error-note.js';
import type { NodeStatus } from './run-state.js';

/** Props of {@link GraphView}. */
export interface GraphViewProps {
  readonly runId: string;
  /** A child run inside run `runId` whose graph is drawn instead (`checks/child`). */
  readonly child?: string | undefined;
  readonly statuses: ReadonlyMap<string, NodeStatus>;
  readonly running: ReadonlySet<string>;
  /** Changes whenever `statuses` or `running` changed (they are mutated in place). */
  readonly version: number;
  readonly selected: string | undefined;
  readonly onSelect: (nodeId: string) => void;
}

/** The graph card's drawing. */
export function GraphView(props: GraphViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const nodes = useRef(new Map<string, { element: SVGGElement; applied: string; label: string }>());
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [fit, setFit] = useState(true);
  const onSelect = useRef(props.onSelect);
  onSelect.current = props.onSelect;

  useEffect(() => {
    let cancelled = false;
    apiText(runPath(props.runId, '/graph', props.child)).then(
      (svg) => {
        const element = host.current;
        if (cancelled || element === null) return;
        // The SVG comes from our own server (Graphviz output; every label escaped there).
        element.innerHTML = svg;
        const found = new Map<string, { element: SVGGElement; applied: string; label: string }>();
        for (const group of element.querySelectorAll<SVGGElement>('g.node[id^="node-"]')) {
          const nodeId = group.id.slice('node-'.length);
          const label = group.querySelector('text')?.textContent ?? nodeId;
          group.setAttribute('tabindex', '0');
          group.setAttribute('role', 'button');
          group.setAttribute('data-node', nodeId);
          // Graphviz adds a <title> per node; the aria-label replaces it for assistive technology.
          group.querySelector('title')?.remove();
          found.set(nodeId, { element: group, applied: group.getAttribute('class') ?? '', label });
        }
        element.querySelector('svg')?.setAttribute('role', 'group');
        element.querySelector('svg')?.setAttribute('aria-label', 'Pipeline graph');
        element.querySelector('svg > title')?.remove();
        nodes.current = found;
        setLoaded(true);
      },
      (failure: unknown) => setError((failure as Error).message),
    );
    return () => {
      cancelled = true;
    };
  }, [props.runId, props.child]);

  // Restyle only the nodes whose class changed.
  useLayoutEffect(() => {
    if (!loaded) return;
    for (const [nodeId, node] of nodes.current) {
      const status = props.statuses.get(nodeId) ?? 'pending';
      const classes = `node status-${status}${props.running.has(nodeId) ? ' current' : ''}${status === 'waiting' ? ' waiting' : ''}${props.selected === nodeId ? ' selected' : ''}`;
      if (classes === node.applied) continue;
      node.element.setAttribute('class', classes);
      node.element.setAttribute('data-status', status);
      node.element.setAttribute('aria-label', `${node.label}: ${status.replace('_', ' ')}`);
      if (props.selected === nodeId) node.element.setAttribute('aria-pressed', 'true');
      else node.element.removeAttribute('aria-pressed');
      node.applied = classes;
    }
  }, [loaded, props.version, props.statuses, props.selected]);

  const pick = (event: Event) => {
    const group = (event.target as Element | null)?.closest?.('g.node[data-node]');
    if (group === null || group === undefined) return;
    event.preventDefault();
    onSelect.current(group.getAttribute('data-node')!);
  };

  return (
    <div class="graph-wrap">
      <div class="graph-tools">
        <button type="button" class="button ghost small" aria-pressed={!fit} onClick={() => setFit(!fit)}>
          {fit ? 'Actual size' : 'Fit to width'}
        </button>
      </div>
      <ErrorNote message={error === undefined ? undefined : `The graph cannot be drawn: ${error}`} />
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the SVG nodes inside are the focusable buttons; this delegates their clicks and keys */}
      <div
        ref={host}
        id="graph"
        class={`graph${fit ? ' fit' : ''}`}
        data-loaded={loaded ? 'true' : undefined}
        onClick={pick}
        onKeyDown={(event) => {
          if (event.key === 'Enter' || event.key === ' ') pick(event);
        }}
      />
      <ul class="legend" aria-label="Status colours">
        {(
          ['pending', 'running', 'waiting', 'success', 'partial_success', 'retry', 'fail', 'skipped'] as const
        ).map((status) => (
          <li key={status}>
            <span class={`swatch status-${status}`} aria-hidden="true" />
            {status.replace('_', ' ')}
          </li>
        ))}
      </ul>
    </div>
  );
}
