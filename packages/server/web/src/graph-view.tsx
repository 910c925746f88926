/**
 * The run's graph: the SVG the server lays out with Graphviz (WebAssembly) is fetched once per run view, then every
 * node is restyled in place from the event stream — only the nodes whose status changed are touched, so a
 * 500-node graph updates in well under a second. Each node is a keyboard-focusable button; Enter or a click opens
 * its stage pane. While the run is live the pane follows the current node (the waiting gate, else the stage that
 * started last): when it changes and lies outside the pane's visible area, the pane scrolls to it. Scrolling the pane
 * by hand (wheel, touch, scroll keys, its scroll bar) stops the following until "Follow the running stage" is
 * pressed or the run ends.
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
  /** Whether the run is still executing: only then does the pane follow the current node. */
  readonly live: boolean;
  /** A badge per node id: a `foreach` node's items done of all (`12/50`). */
  readonly progress?: ReadonlyMap<string, string> | undefined;
}

/** A drawn node: its SVG group, the classes and badge applied last, and its label. */
interface DrawnNode {
  readonly element: SVGGElement;
  applied: string;
  readonly label: string;
  /** The progress badge drawn (`12/50`). */
  badge?: string | undefined;
  /** The badge the aria-label names. */
  labelledBadge?: string | undefined;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Draws (or updates, or removes) a node's progress badge: a text at the top right of its shape, beside the node's
 * group rather than in it (the node's accessible name says the progress in words).
 */
function showBadge(node: DrawnNode, badge: string | undefined): void {
  node.badge = badge;
  const nodeId = node.element.getAttribute('data-node') ?? '';
  let text = node.element.parentElement?.querySelector<SVGTextElement>(
    `text.node-progress[data-node="${CSS.escape(nodeId)}"]`,
  );
  if (badge === undefined) {
    text?.remove();
    return;
  }
  if (text === null || text === undefined) {
    const shape = node.element.querySelector<SVGGraphicsElement>('ellipse, polygon, path');
    const box = (shape ?? node.element).getBBox();
    text = document.createElementNS(SVG_NS, 'text');
    text.setAttribute('class', 'node-progress');
    text.setAttribute('data-node', nodeId);
    text.setAttribute('x', String(box.x + box.width));
    text.setAttribute('y', String(box.y - 3));
    text.setAttribute('text-anchor', 'end');
    text.setAttribute('aria-hidden', 'true');
    node.element.after(text);
  }
  text.textContent = badge;
}

/** Keys that scroll an element with focus inside it. */
const SCROLL_KEYS = new Set([
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'PageUp',
  'PageDown',
  'Home',
  'End',
  ' ',
]);

/**
 * The node the pane follows: a waiting gate, else the running stage that started last (`running` keeps insertion
 * order); `undefined` when neither is drawn in this graph.
 */
function currentNode(
  drawn: ReadonlyMap<string, unknown>,
  statuses: ReadonlyMap<string, NodeStatus>,
  running: ReadonlySet<string>,
): string | undefined {
  for (const nodeId of drawn.keys()) if (statuses.get(nodeId) === 'waiting') return nodeId;
  let last: string | undefined;
  for (const nodeId of running) if (drawn.has(nodeId)) last = nodeId;
  return last;
}

/**
 * Scrolls `pane` so that `node` is in its visible area, centred on each axis it was outside of; nothing when it is
 * already wholly visible. Smooth unless the user prefers reduced motion. Only the pane scrolls, not the page.
 */
function bringIntoView(pane: HTMLElement, node: Element): void {
  const view = pane.getBoundingClientRect();
  const box = node.getBoundingClientRect();
  // The visible area inside the pane's borders and scroll bars.
  const top = view.top + pane.clientTop;
  const left = view.left + pane.clientLeft;
  const bottom = top + pane.clientHeight;
  const right = left + pane.clientWidth;
  const outsideY = box.top < top || box.bottom > bottom;
  const outsideX = box.left < left || box.right > right;
  if (!outsideY && !outsideX) return;
  const reduced = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  // Absolute positions: a smooth scroll still under way from an earlier node is then retargeted, not added to.
  pane.scrollTo({
    top: outsideY
      ? pane.scrollTop + box.top + box.height / 2 - (top + pane.clientHeight / 2)
      : pane.scrollTop,
    left: outsideX
      ? pane.scrollLeft + box.left + box.width / 2 - (left + pane.clientWidth / 2)
      : pane.scrollLeft,
    behavior: reduced ? 'auto' : 'smooth',
  });
}

/** The graph card's drawing. */
export function GraphView(props: GraphViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const nodes = useRef(new Map<string, DrawnNode>());
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [fit, setFit] = useState(true);
  // Off once the user scrolls the pane during a live run; on again with the button or when the run ends.
  const [follow, setFollow] = useState(true);
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
        const found = new Map<string, DrawnNode>();
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
      const badge = props.progress?.get(nodeId);
      if (badge !== node.badge) showBadge(node, badge);
      const classes = `node status-${status}${props.running.has(nodeId) ? ' current' : ''}${status === 'waiting' ? ' waiting' : ''}${props.selected === nodeId ? ' selected' : ''}`;
      if (classes === node.applied && badge === node.labelledBadge) continue;
      node.labelledBadge = badge;
      node.element.setAttribute('class', classes);
      node.element.setAttribute('data-status', status);
      node.element.setAttribute(
        'aria-label',
        `${node.label}: ${status.replace('_', ' ')}${badge === undefined ? '' : `, ${badge.replace('/', ' of ')} items done`}`,
      );
      if (props.selected === nodeId) node.element.setAttribute('aria-pressed', 'true');
      else node.element.removeAttribute('aria-pressed');
      node.applied = classes;
    }
  }, [loaded, props.version, props.statuses, props.selected, props.progress]);

  useEffect(() => {
    if (!props.live) setFollow(true);
  }, [props.live]);

  const current = loaded ? currentNode(nodes.current, props.statuses, props.running) : undefined;
  useEffect(() => {
    const pane = host.current;
    const node = current === undefined ? undefined : nodes.current.get(current)?.element;
    if (!props.live || !follow || pane === null || node === undefined) return;
    bringIntoView(pane, node);
  }, [current, props.live, follow]);

  // Only what a person does to the pane stops the following: the pane's own smooth scrolling fires scroll events too.
  const live = useRef(props.live);
  live.current = props.live;
  const userScrolled = () => {
    if (live.current) setFollow(false);
  };
  useEffect(() => {
    const pane = host.current;
    if (pane === null) return;
    // Passive: watching the wheel and touch must not delay the scrolling itself.
    pane.addEventListener('wheel', userScrolled, { passive: true });
    pane.addEventListener('touchmove', userScrolled, { passive: true });
    return () => {
      pane.removeEventListener('wheel', userScrolled);
      pane.removeEventListener('touchmove', userScrolled);
    };
  }, []);

  const pick = (event: Event) => {
    const group = (event.target as Element | null)?.closest?.('g.node[data-node]');
    if (group === null || group === undefined) return;
    event.preventDefault();
    onSelect.current(group.getAttribute('data-node')!);
  };

  return (
    <div class="graph-wrap">
      <div class="graph-tools">
        {props.live && !follow && (
          <button type="button" class="button ghost small" id="follow-button" onClick={() => setFollow(true)}>
            Follow the running stage
          </button>
        )}
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
          if (SCROLL_KEYS.has(event.key) && !event.defaultPrevented) userScrolled();
        }}
        onPointerDown={(event) => {
          // On the pane itself rather than on the drawing inside: its scroll bar.
          if (event.target === event.currentTarget) userScrolled();
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
