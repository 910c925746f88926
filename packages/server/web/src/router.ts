/**
 * Page routes on the History API: `/` (runs), `/new`, `/runs/<id>` (a run, optionally `?stage=<node>`, and
 * `?child=<path>` for a child run inside it, e.g. the sub-pipeline of node `checks`: `checks/child`, and
 * `?branch=<a/x>` for one parallel branch of it, nested branches `/`-separated). The server
 * serves index.html for each of them, so a run URL can be opened, bookmarked and shared.
 */
import { useEffect, useState } from 'preact/hooks';

/** The page a URL shows. */
export type Route =
  | { readonly page: 'runs' }
  | { readonly page: 'new' }
  | {
      readonly page: 'run';
      readonly runId: string;
      readonly stage?: string;
      readonly child?: string;
      readonly branch?: string;
    }
  | { readonly page: 'missing'; readonly path: string };

/** The route of `location`. */
export function parseRoute(location: Pick<Location, 'pathname' | 'search'>): Route {
  const path = location.pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return { page: 'runs' };
  if (path === '/new') return { page: 'new' };
  const run = /^\/runs\/([^/]+)$/.exec(path);
  if (run !== null) {
    const query = new URLSearchParams(location.search);
    const stage = query.get('stage');
    const child = query.get('child');
    const branch = query.get('branch');
    return {
      page: 'run',
      runId: decodeURIComponent(run[1]!),
      ...(stage === null ? {} : { stage }),
      ...(child === null || child === '' ? {} : { child }),
      ...(branch === null || branch === '' ? {} : { branch }),
    };
  }
  return { page: 'missing', path };
}

/** Goes to `href` without reloading the page (`replace` keeps the history entry). */
export function navigate(href: string, options: { readonly replace?: boolean } = {}): void {
  if (options.replace === true) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The current route; re-renders on navigation. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location));
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return route;
}

/** A click handler for in-app links: plain left clicks navigate in place, others keep the browser's behaviour. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? undefined;
  if (
    anchor === undefined ||
    event.defaultPrevented ||
    event.button !== 0 ||
    event.metaKey ||
    event.ctrlKey ||
    event.shiftKey ||
    event.altKey
  )
    return;
  event.preventDefault();
  navigate(anchor.getAttribute('href') ?? '/');
}

/**
 * The URL of a run's page, with the stage pane of `stage` open; `scope.child` for a child run inside it,
 * `scope.branch` for one parallel branch (`a/x`: branch `x` inside branch `a`).
 */
export function runHref(
  runId: string,
  stage?: string,
  scope: { readonly child?: string | undefined; readonly branch?: string | undefined } = {},
): string {
  const query = new URLSearchParams();
  if (scope.child !== undefined) query.set('child', scope.child);
  if (scope.branch !== undefined) query.set('branch', scope.branch);
  if (stage !== undefined) query.set('stage', stage);
  const search = query.toString();
  return `/runs/${encodeURIComponent(runId)}${search === '' ? '' : `?${search}`}`;
}
