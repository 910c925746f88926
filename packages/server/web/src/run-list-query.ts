/**
 * The runs page's filters, search and sort as a URL query string
 * (`/?status=fail&graph=deploy&q=timeout&archived=include&sort=cost&dir=asc`),
 * so a filtered view can be reloaded, shared and reached again with back/forward.
 */
import type { RunSummary } from './api.js';

/** Columns the runs list can be sorted by. */
export const SORT_KEYS = ['status', 'graph', 'start', 'duration', 'cost'] as const;

/** A column the runs list can be sorted by. */
export type SortKey = (typeof SORT_KEYS)[number];

/** The runs page's filters and sort. Empty strings mean "no filter". */
export interface RunListQuery {
  /** A run state (`GET /pipelines` `state`), or ''. */
  readonly status: string;
  /** A graph name, or ''. */
  readonly graph: string;
  /** Text searched in id, graph, goal and failure reason (case-insensitive), or ''. */
  readonly q: string;
  /** Show archived runs too (`archived=include`, as `GET /pipelines` takes it); default false. */
  readonly archived: boolean;
  /** Sort column; default `start`. */
  readonly sort: SortKey;
  /** Sort direction; default `desc` (newest first). */
  readonly dir: 'asc' | 'desc';
}

/** The query of a `location.search` string; unknown values fall back to the defaults. Pure. */
export function parseRunListQuery(search: string): RunListQuery {
  const params = new URLSearchParams(search);
  const sort = params.get('sort') ?? '';
  const dir = params.get('dir');
  return {
    status: params.get('status') ?? '',
    graph: params.get('graph') ?? '',
    q: params.get('q') ?? '',
    archived: params.get('archived') === 'include',
    sort: (SORT_KEYS as readonly string[]).includes(sort) ? (sort as SortKey) : 'start',
    dir: dir === 'asc' ? 'asc' : 'desc',
  };
}

/** The URL (path `/` and query string) of `query`, leaving out defaults. Pure. */
export function runListHref(query: RunListQuery): string {
  const params = new URLSearchParams();
  if (query.status !== '') params.set('status', query.status);
  if (query.graph !== '') params.set('graph', query.graph);
  if (query.q !== '') params.set('q', query.q);
  if (query.archived) params.set('archived', 'include');
  if (query.sort !== 'start' || query.dir !== 'desc') {
    params.set('sort', query.sort);
    params.set('dir', query.dir);
  }
  const text = params.toString();
  return text === '' ? '/' : `/?${text}`;
}

/** Whether `run` is shown at all under `query`: archived runs only when it shows them. Pure. */
export function isShownRun(run: RunSummary, query: RunListQuery): boolean {
  return query.archived || run.archived !== true;
}

/** Whether `run` passes the filters and search of `query` (archived runs only when it shows them). Pure. */
export function matchesRunListQuery(run: RunSummary, query: RunListQuery): boolean {
  const needle = query.q.trim().toLowerCase();
  return (
    isShownRun(run, query) &&
    (query.status === '' || run.state === query.status) &&
    (query.graph === '' || run.graphName === query.graph) &&
    (needle === '' ||
      run.id.toLowerCase().includes(needle) ||
      run.graphName.toLowerCase().includes(needle) ||
      run.goal.toLowerCase().includes(needle) ||
      (run.failureReason ?? '').toLowerCase().includes(needle))
  );
}

/**
 * Compares two runs by `key` ascending (ties: start time, then id). A live run's duration counts up to `now`
 * (epoch ms); runs without a duration or cost sort before every run with one. Pure.
 */
export function compareRuns(a: RunSummary, b: RunSummary, key: SortKey, now: number): number {
  const byStart = a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id);
  switch (key) {
    case 'start':
      return byStart;
    case 'status':
      return a.state.localeCompare(b.state) || byStart;
    case 'graph':
      return a.graphName.localeCompare(b.graphName) || byStart;
    case 'duration':
      return compareOptional(runDurationMs(a, now), runDurationMs(b, now)) || byStart;
    case 'cost':
      return compareOptional(a.usage?.costUsd, b.usage?.costUsd) || byStart;
  }
}

/** A run's duration in milliseconds: ended, or counting up to `now` while live; undefined otherwise. Pure. */
export function runDurationMs(run: RunSummary, now: number): number | undefined {
  const started = Date.parse(run.startedAt);
  if (run.endedAt !== undefined) return Date.parse(run.endedAt) - started;
  return run.live ? now - started : undefined;
}

function compareOptional(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined) return (a === undefined ? 0 : 1) - (b === undefined ? 0 : 1);
  return a - b;
}
