/**
 * The run's graph: the SVG the server lays out with Graphviz (WebAssembly) is fetched once per run view, then every
 * node is restyled in place from the event stream — only the nodes whose status changed are touched, so a
 * 500-node graph updates in well under a second. Each node is a keyboard-focusable button; Enter or a click opens
 * its stage pane. While the run is live the pane follows the current node (the waiting gate, else the stage that
 * started last): when it changes and lies outside the pane's visible area, the pane scrolls to it. Scrolling the pane
 * by hand (wheel, touch, scroll keys, its scroll bar), dragging the drawing, zooming or using the overview stops the
 * following until "Follow the running stage" is pressed or the run ends.
 *
 * The viewport: the pane scrolls natively (wheel, touch, keys, scroll bars, and dragging the drawing with the mouse);
 * zoom sets the SVG's drawn size (buttons, ctrl/⌘ + wheel or a touchpad pinch around the pointer, a two-finger pinch
 * on a touch screen, `+` `-` `0` keys), keeping the point under the pointer (or the pane's centre) in place. It opens fitted to the pane's width (at most
 * actual size, at least half); "Fit" shows the whole graph, but never below a readable zoom: a graph too large for
 * that (a long chain) is shown at that zoom around its running stage (else its start), with a note pointing to the
 * other direction. A graph larger than its pane gets an overview
 * ({@link GraphMinimap}).
 * The direction toggle asks the server for the drawing top to bottom or left to right (`?rankdir=`).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { apiText, runPath } from './api.js';
import { ErrorNote } from './error-note.js';
import { GraphMinimap, type ViewFraction } from './graph-minimap.js';
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

/** Zoom limits (drawn size ÷ actual size). */
const MIN_ZOOM = 0.1;
/**
 * The smallest zoom "Fit" goes to: Graphviz's 14 pt labels are drawn 7.5 CSS pixels high there, still readable. A
 * graph that fits whole only below it (a chain of hundreds of stages would be a line of one pixel) is not fitted whole.
 */
const MIN_FIT_ZOOM = 0.4;
const MAX_ZOOM = 4;
/** One zoom step of the buttons and keys. */
const ZOOM_STEP = 1.25;
/** How far the pointer moves before a press on the drawing becomes a drag, in CSS pixels. */
const DRAG_THRESHOLD = 4;
/** The smallest zoom the drawing opens at (fitted to the pane's width): a long left-to-right chain stays legible. */
const MIN_OPENING_ZOOM = 0.5;
/** The pane height, in CSS pixels, below which no overview is drawn over it. */
const MINIMAP_PANE_HEIGHT = 120;
/** The statuses counted as done in "n of N stages done": the stage reached its outcome. */
const DONE = new Set<NodeStatus>(['success', 'partial_success', 'fail', 'skipped']);
/** The legend's statuses, in the order a run goes through them. */
const LEGEND = [
  'pending',
  'running',
  'waiting',
  'success',
  'partial_success',
  'retry',
  'fail',
  'skipped',
  'cancelled',
] as const satisfies readonly NodeStatus[];

/** How the drawing is scaled: fitted to the pane's width, fitted whole, or the user's own zoom. */
type ZoomMode = 'width' | 'all' | 'manual';

/** The SVG's size at 100 % in CSS pixels (Graphviz sizes it in points), from its viewBox. */
function naturalSize(svg: SVGSVGElement): { width: number; height: number } {
  const box = svg.viewBox.baseVal;
  return { width: (box.width * 4) / 3, height: (box.height * 4) / 3 };
}

/** The pane's visible area in client coordinates, inside its borders and scroll bars. */
function visibleArea(pane: HTMLElement) {
  const view = pane.getBoundingClientRect();
  const left = view.left + pane.clientLeft;
  const top = view.top + pane.clientTop;
  return { left, top, width: pane.clientWidth, height: pane.clientHeight };
}

/** The graph card's drawing. */
export function GraphView(props: GraphViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const nodes = useRef(new Map<string, DrawnNode>());
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | undefined>();
  // The direction asked of the server (undefined: the graph's own) and the one drawn.
  const [rankdir, setRankdir] = useState<'TB' | 'LR' | undefined>();
  const [drawnAcross, setDrawnAcross] = useState(false);
  const [zoom, setZoom] = useState(1);
  const mode = useRef<ZoomMode>('width');
  // "Fit" stopped at MIN_FIT_ZOOM: the zoom the whole graph would have needed, until the zoom changes again.
  const [unfitted, setUnfitted] = useState<number | undefined>();
  const [view, setView] = useState<(ViewFraction & { shown: boolean }) | undefined>();
  // Off once the user scrolls the pane during a live run; on again with the button or when the run ends.
  const [follow, setFollow] = useState(true);
  const onSelect = useRef(props.onSelect);
  onSelect.current = props.onSelect;

  const svgOf = () => host.current?.querySelector<SVGSVGElement>(':scope > svg') ?? undefined;

  /** Records where the pane's visible area lies on the drawing (for the overview). */
  const measure = () => {
    const pane = host.current;
    const svg = svgOf();
    if (pane === null || svg === undefined) return;
    const area = visibleArea(pane);
    const box = svg.getBoundingClientRect();
    const clamp = (value: number) => Math.min(1, Math.max(0, value));
    const left = clamp((area.left - box.left) / box.width);
    const top = clamp((area.top - box.top) / box.height);
    setView({
      // The overview is for a drawing larger than its pane, in a pane tall enough to hold it.
      shown:
        pane.clientHeight >= MINIMAP_PANE_HEIGHT &&
        (pane.scrollHeight - pane.clientHeight > 2 || pane.scrollWidth - pane.clientWidth > 2),
      left,
      top,
      width: clamp((area.left + area.width - box.left) / box.width) - left,
      height: clamp((area.top + area.height - box.top) / box.height) - top,
    });
  };

  /**
   * Draws the SVG at `scale` times its actual size, keeping the drawing's point under client position `anchor` (by
   * default the pane's centre) where it was.
   */
  const zoomTo = (scale: number, anchor?: { x: number; y: number }) => {
    const pane = host.current;
    const svg = svgOf();
    if (pane === null || svg === undefined) return;
    const area = visibleArea(pane);
    const x = anchor?.x ?? area.left + area.width / 2;
    const y = anchor?.y ?? area.top + area.height / 2;
    const before = svg.getBoundingClientRect();
    const size = naturalSize(svg);
    svg.style.width = `${size.width * scale}px`;
    svg.style.height = `${size.height * scale}px`;
    if (before.width > 0 && before.height > 0) {
      const after = svg.getBoundingClientRect();
      pane.scrollLeft += after.left + ((x - before.left) / before.width) * after.width - x;
      pane.scrollTop += after.top + ((y - before.top) / before.height) * after.height - y;
    }
    setZoom(scale);
    setUnfitted(undefined);
    measure();
  };

  /**
   * Applies a fitted mode: the pane's width (at most actual size, at least {@link MIN_OPENING_ZOOM}), or the whole
   * graph inside the pane, at least at {@link MIN_FIT_ZOOM}: then centred on the running stage, else at its start.
   */
  const fit = (next: 'width' | 'all') => {
    const pane = host.current;
    const svg = svgOf();
    // A pane not laid out (hidden) has no size to fit: the next resize fits it.
    if (pane === null || svg === undefined || pane.clientWidth <= 0) return;
    mode.current = next;
    const size = naturalSize(svg);
    const width = pane.clientWidth - 1;
    // The tallest the pane may grow (its max-height), not its height now (which follows the drawing).
    const maxHeight = Number.parseFloat(getComputedStyle(pane).maxHeight);
    const height = (Number.isFinite(maxHeight) ? maxHeight : pane.clientHeight) - 1;
    const whole = Math.min(MAX_ZOOM, width / size.width, height / size.height);
    const scale =
      next === 'width'
        ? Math.min(1, Math.max(MIN_OPENING_ZOOM, width / size.width))
        : Math.max(MIN_FIT_ZOOM, whole);
    zoomTo(scale);
    if (next === 'all') {
      pane.scrollTo({ left: 0, top: 0 });
      if (whole < MIN_FIT_ZOOM) {
        const running = currentRef.current === undefined ? undefined : nodes.current.get(currentRef.current);
        if (running !== undefined) {
          const area = visibleArea(pane);
          const box = running.element.getBoundingClientRect();
          pane.scrollLeft += box.left + box.width / 2 - (area.left + area.width / 2);
          pane.scrollTop += box.top + box.height / 2 - (area.top + area.height / 2);
        }
        setUnfitted(whole);
      }
    }
    measure();
  };

  /** The user's zoom by `factor` around `anchor`: ends the following and any fitted mode. */
  const zoomBy = (factor: number, anchor?: { x: number; y: number }) => {
    const scale = Math.min(MAX_ZOOM, Math.max(Math.min(MIN_ZOOM, zoomRef.current), zoomRef.current * factor));
    mode.current = 'manual';
    userScrolled();
    zoomTo(scale, anchor);
  };
  const zoomRef = useRef(zoom);
  zoomRef.current = zoom;

  useEffect(() => {
    let cancelled = false;
    setLoaded(false);
    apiText(
      // Without the run's statuses: the same drawing for every run of the pipeline, which the server keeps (and lays
      // out ahead for a large graph); the nodes are coloured here from the run's events.
      runPath(
        props.runId,
        rankdir === undefined ? '/graph?statuses=none' : `/graph?statuses=none&rankdir=${rankdir}`,
        props.child,
      ),
    ).then(
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
        const drawing = element.querySelector('svg');
        drawing?.setAttribute('role', 'group');
        drawing?.setAttribute('aria-label', 'Pipeline graph');
        element.querySelector('svg > title')?.remove();
        const direction = /\brankdir-(\w+)/.exec(
          drawing?.querySelector('g.graph')?.getAttribute('class') ?? '',
        );
        setDrawnAcross(direction?.[1] === 'LR' || direction?.[1] === 'RL');
        nodes.current = found;
        // A new drawing (another direction) opens as the first did.
        fit('width');
        setLoaded(true);
      },
      (failure: unknown) => setError((failure as Error).message),
    );
    return () => {
      cancelled = true;
    };
  }, [props.runId, props.child, rankdir]);

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
  const currentRef = useRef(current);
  currentRef.current = current;
  useEffect(() => {
    const pane = host.current;
    const node = current === undefined ? undefined : nodes.current.get(current)?.element;
    if (!props.live || !follow || pane === null || node === undefined) return;
    bringIntoView(pane, node);
  }, [current, props.live, follow, loaded]);

  // Only what a person does to the pane stops the following: the pane's own smooth scrolling fires scroll events too.
  const live = useRef(props.live);
  live.current = props.live;
  const userScrolled = () => {
    if (live.current) setFollow(false);
  };
  // Handlers that must see this render's closures from listeners added once.
  const handlers = useRef({ zoomBy, fit, measure });
  handlers.current = { zoomBy, fit, measure };
  useEffect(() => {
    const pane = host.current;
    if (pane === null) return;
    // Passive: watching the wheel and touch must not delay the scrolling itself. A ctrl/⌘ wheel (and a touchpad
    // pinch, which Chromium, Firefox and Safari send as one) zooms instead, so that one is not passive.
    const onWheel = (event: WheelEvent) => {
      if (!event.ctrlKey && !event.metaKey) return userScrolled();
      event.preventDefault();
      const pixels = event.deltaY * (event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? 400 : 1);
      handlers.current.zoomBy(Math.exp(-pixels / 300), { x: event.clientX, y: event.clientY });
    };
    let frame = 0;
    const onScroll = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => handlers.current.measure());
    };
    // Two fingers pinch-zoom the drawing (not the page) around their midpoint; one finger scrolls the pane natively.
    let pinch: number | undefined;
    const spreadOf = (touches: TouchList) => {
      const [first, second] = [touches[0], touches[1]];
      return touches.length !== 2 || first === undefined || second === undefined
        ? undefined
        : {
            spread: Math.hypot(first.clientX - second.clientX, first.clientY - second.clientY),
            x: (first.clientX + second.clientX) / 2,
            y: (first.clientY + second.clientY) / 2,
          };
    };
    const onTouchStart = (event: TouchEvent) => {
      pinch = spreadOf(event.touches)?.spread;
    };
    const onTouchMove = (event: TouchEvent) => {
      const fingers = spreadOf(event.touches);
      if (fingers === undefined) {
        pinch = undefined;
        return userScrolled();
      }
      event.preventDefault();
      const { spread } = fingers;
      if (pinch !== undefined && pinch > 0 && spread > 0)
        handlers.current.zoomBy(spread / pinch, { x: fingers.x, y: fingers.y });
      pinch = spread;
    };
    const onTouchEnd = () => {
      pinch = undefined;
    };
    pane.addEventListener('wheel', onWheel, { passive: false });
    pane.addEventListener('touchstart', onTouchStart, { passive: true });
    pane.addEventListener('touchmove', onTouchMove, { passive: false });
    pane.addEventListener('touchend', onTouchEnd, { passive: true });
    pane.addEventListener('scroll', onScroll, { passive: true });
    // A fitted drawing follows the pane's width (a window resized, the stage pane opened).
    let width = pane.clientWidth;
    const resized = new ResizeObserver(() => {
      if (pane.clientWidth === width) return;
      width = pane.clientWidth;
      if (mode.current !== 'manual') handlers.current.fit(mode.current);
      else handlers.current.measure();
    });
    resized.observe(pane);
    return () => {
      cancelAnimationFrame(frame);
      resized.disconnect();
      pane.removeEventListener('wheel', onWheel);
      pane.removeEventListener('touchstart', onTouchStart);
      pane.removeEventListener('touchmove', onTouchMove);
      pane.removeEventListener('touchend', onTouchEnd);
      pane.removeEventListener('scroll', onScroll);
    };
  }, []);

  // Dragging the drawing with the mouse (or a pen) pans it; a press that does not move stays a click on a node.
  const drag = useRef<
    { id: number; x: number; y: number; left: number; top: number; moved: boolean } | undefined
  >(undefined);
  const dragged = useRef(false);

  const pick = (event: Event) => {
    if (dragged.current) {
      dragged.current = false;
      return;
    }
    const group = (event.target as Element | null)?.closest?.('g.node[data-node]');
    if (group === null || group === undefined) return;
    event.preventDefault();
    onSelect.current(group.getAttribute('data-node')!);
  };

  /** Centres the pane on a point of the drawing given as fractions of its size (the overview's presses). */
  const moveTo = (x: number, y: number) => {
    const pane = host.current;
    const svg = svgOf();
    if (pane === null || svg === undefined) return;
    userScrolled();
    const area = visibleArea(pane);
    const box = svg.getBoundingClientRect();
    pane.scrollLeft += box.left + x * box.width - (area.left + area.width / 2);
    pane.scrollTop += box.top + y * box.height - (area.top + area.height / 2);
    measure();
  };

  const total = loaded ? nodes.current.size : 0;
  let done = 0;
  if (loaded) for (const nodeId of nodes.current.keys()) if (DONE.has(props.statuses.get(nodeId)!)) done++;
  const svg = loaded ? svgOf() : undefined;

  return (
    <div class="graph-wrap">
      <div class="graph-tools">
        <p class="graph-progress" id="graph-progress">
          {loaded ? `${done} of ${total} stages done` : ''}
        </p>
        {props.live && !follow && (
          <button type="button" class="button ghost small" id="follow-button" onClick={() => setFollow(true)}>
            Follow the running stage
          </button>
        )}
        <div class="zoom-tools">
          <button
            type="button"
            class="button ghost small"
            id="zoom-out"
            aria-label="Zoom out"
            title="Zoom out (-)"
            onClick={() => zoomBy(1 / ZOOM_STEP)}
          >
            −
          </button>
          <button
            type="button"
            class="button ghost small zoom-level"
            id="zoom-actual"
            aria-label={`Zoom ${Math.round(zoom * 100)}%: show at actual size`}
            title="Actual size"
            onClick={() => {
              mode.current = 'manual';
              userScrolled();
              zoomTo(1);
            }}
          >
            {Math.round(zoom * 100)}%
          </button>
          <button
            type="button"
            class="button ghost small"
            id="zoom-in"
            aria-label="Zoom in"
            title="Zoom in (+)"
            onClick={() => zoomBy(ZOOM_STEP)}
          >
            +
          </button>
          <button
            type="button"
            class="button ghost small"
            id="zoom-fit"
            title="Show the whole graph (0)"
            onClick={() => fit('all')}
          >
            Fit
          </button>
        </div>
        <button
          type="button"
          class="button ghost small"
          id="direction-button"
          onClick={() => setRankdir(drawnAcross ? 'TB' : 'LR')}
        >
          {drawnAcross ? 'Top to bottom' : 'Left to right'}
        </button>
      </div>
      {unfitted !== undefined && (
        <p class="graph-note" id="graph-fit-note" role="status">
          The whole graph fits only at {Math.max(1, Math.round(unfitted * 100))}%, too small to read: it is
          shown at {Math.round(MIN_FIT_ZOOM * 100)}%
          {current === undefined ? ' from its start' : ' around the running stage'}; move with the overview
          {drawnAcross ? '.' : ', or draw it "Left to right".'}
        </p>
      )}
      <ErrorNote message={error === undefined ? undefined : `The graph cannot be drawn: ${error}`} />
      <div class="graph-viewport">
        {/* biome-ignore lint/a11y/noStaticElementInteractions: the SVG nodes inside are the focusable buttons; this delegates their clicks and keys */}
        <div
          ref={host}
          id="graph"
          class="graph"
          data-loaded={loaded ? 'true' : undefined}
          data-zoom={zoom.toFixed(4)}
          onClick={pick}
          onKeyDown={(event) => {
            if (event.key === 'Enter' || event.key === ' ') pick(event);
            if (SCROLL_KEYS.has(event.key) && !event.defaultPrevented) userScrolled();
            if (event.ctrlKey || event.metaKey || event.altKey) return;
            if (event.key === '+' || event.key === '=') zoomBy(ZOOM_STEP);
            else if (event.key === '-') zoomBy(1 / ZOOM_STEP);
            else if (event.key === '0') fit('all');
          }}
          onPointerDown={(event) => {
            // On the pane itself rather than on the drawing inside: its scroll bar.
            dragged.current = false;
            if (event.target === event.currentTarget) return userScrolled();
            if (event.button !== 0 || event.pointerType === 'touch') return;
            const pane = event.currentTarget as HTMLElement;
            drag.current = {
              id: event.pointerId,
              x: event.clientX,
              y: event.clientY,
              left: pane.scrollLeft,
              top: pane.scrollTop,
              moved: false,
            };
          }}
          onPointerMove={(event) => {
            const state = drag.current;
            if (state === undefined || state.id !== event.pointerId) return;
            const pane = event.currentTarget as HTMLElement;
            const dx = event.clientX - state.x;
            const dy = event.clientY - state.y;
            if (!state.moved) {
              if (Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
              state.moved = true;
              pane.setPointerCapture(event.pointerId);
              pane.classList.add('panning');
              userScrolled();
            }
            pane.scrollLeft = state.left - dx;
            pane.scrollTop = state.top - dy;
          }}
          onPointerUp={(event) => {
            if (drag.current?.moved === true) dragged.current = true;
            drag.current = undefined;
            (event.currentTarget as HTMLElement).classList.remove('panning');
          }}
          onPointerCancel={(event) => {
            drag.current = undefined;
            (event.currentTarget as HTMLElement).classList.remove('panning');
          }}
        />
        {svg !== undefined && view?.shown === true && (
          <GraphMinimap
            source={svg}
            version={props.version}
            view={view}
            {...naturalSize(svg)}
            onMove={moveTo}
          />
        )}
      </div>
      <ul class="legend" aria-label="Status colours">
        {LEGEND.map((status) => (
          <li key={status}>
            <span class={`swatch status-${status}`} aria-hidden="true" />
            {status.replace('_', ' ')}
          </li>
        ))}
      </ul>
    </div>
  );
}
