/**
 * The graph's overview (minimap) for a graph larger than its pane: a small copy of the drawing, coloured like it,
 * with a frame where the pane's visible area is. Pressing (or dragging) on it moves the view there. A mouse aid:
 * hidden from assistive technology, which moves through the graph's own focusable nodes.
 */
import { useEffect, useRef } from 'preact/hooks';

/** The pane's visible area as fractions (0–1) of the drawing's width and height. */
export interface ViewFraction {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** Props of {@link GraphMinimap}. */
export interface GraphMinimapProps {
  /** The drawing to copy (the pane's SVG). */
  readonly source: SVGSVGElement;
  /** Changes whenever the drawing's node classes changed: the copy is refreshed (at most a few times a second). */
  readonly version: number;
  readonly view: ViewFraction;
  /** The drawing's size at 100 %, in CSS pixels. */
  readonly width: number;
  readonly height: number;
  /** Centres the view on this point, given as fractions (0–1) of the drawing's width and height. */
  readonly onMove: (x: number, y: number) => void;
}

/** The largest the overview is drawn, in CSS pixels; a very thin graph is stretched to at least {@link MIN_SIDE}. */
const MAX_WIDTH = 140;
const MAX_HEIGHT = 160;
const MIN_SIDE = 28;

/** How long node colour changes wait before the copy is refreshed, in milliseconds. */
const REFRESH_MS = 250;

/** The longest the first copy waits for the page to be idle, in milliseconds. */
const FIRST_DRAW_MS = 1000;

/** A copy of `source` without texts, ids, roles, focus or labels: only the shapes. */
function pictureOf(source: SVGSVGElement): SVGSVGElement {
  const copy = source.cloneNode(true) as SVGSVGElement;
  // Too small to read at this scale: texts would only cost layout.
  for (const element of copy.querySelectorAll('text, title')) element.remove();
  for (const element of [copy, ...copy.querySelectorAll('*')]) {
    for (const name of ['id', 'tabindex', 'role', 'aria-label', 'aria-pressed', 'style', 'width', 'height'])
      element.removeAttribute(name);
  }
  copy.setAttribute('preserveAspectRatio', 'none');
  copy.setAttribute('focusable', 'false');
  return copy;
}

/** The overview box with the frame of the visible area. */
export function GraphMinimap(props: GraphMinimapProps) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const timer = setTimeout(() => host.current?.replaceChildren(pictureOf(props.source)), REFRESH_MS);
    return () => clearTimeout(timer);
  }, [props.source, props.version]);
  // The first copy as soon as the page is idle: the drawing itself and its statuses come first.
  useEffect(() => {
    const draw = () => host.current?.replaceChildren(pictureOf(props.source));
    if (typeof requestIdleCallback !== 'function') {
      const timer = setTimeout(draw, 0);
      return () => clearTimeout(timer);
    }
    const idle = requestIdleCallback(draw, { timeout: FIRST_DRAW_MS });
    return () => cancelIdleCallback(idle);
  }, [props.source]);

  const scale = Math.min(MAX_WIDTH / props.width, MAX_HEIGHT / props.height);
  const width = Math.max(MIN_SIDE, Math.round(props.width * scale));
  const height = Math.max(MIN_SIDE, Math.round(props.height * scale));
  const move = (event: PointerEvent) => {
    const box = (event.currentTarget as HTMLElement).getBoundingClientRect();
    props.onMove(
      Math.min(1, Math.max(0, (event.clientX - box.left) / box.width)),
      Math.min(1, Math.max(0, (event.clientY - box.top) / box.height)),
    );
  };
  const percent = (value: number) => `${(value * 100).toFixed(2)}%`;
  return (
    <div
      class="minimap"
      id="graph-minimap"
      aria-hidden="true"
      style={{ width: `${width}px`, height: `${height}px` }}
      onPointerDown={(event) => {
        if (event.button !== 0) return;
        event.preventDefault();
        (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
        move(event);
      }}
      onPointerMove={(event) => {
        if ((event.buttons & 1) === 1) move(event);
      }}
    >
      <div ref={host} class="minimap-picture" />
      <div
        class="minimap-view"
        style={{
          left: percent(props.view.left),
          top: percent(props.view.top),
          width: percent(props.view.width),
          height: percent(props.view.height),
        }}
      />
    </div>
  );
}
