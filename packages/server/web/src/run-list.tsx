/**
 * The runs page: every run of the server (live and past) with status, graph, goal, start, duration, tokens and
 * cost, and Archive / Unarchive on each row; filters by status and graph, "Show archived", a text search and
 * sortable columns, all kept in the URL's query string (see
 * `run-list-query.ts`) so reload and back/forward restore them. It loads the list each time the app's `GET /events`
 * stream (re)opens (`run-changes.ts`) and follows it, which sends a run's new summary whenever it changes — no
 * polling. Renders the first {@link PAGE_SIZE} matches and more
 * on request, so 1,000 runs stay quick.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiJson, type RunSummary, runPath } from './api.js';
import { isLost, useConnectionState } from './connection-state.js';
import { ErrorNote } from './error-note.js';
import { formatCost, formatDuration, formatTime, formatTokens } from './format.js';
import { choicesOf } from './gate-panel.js';
import { navigate, onLinkClick, runHref } from './router.js';
import { onRunChanges } from './run-changes.js';
import {
  compareRuns,
  isShownRun,
  matchesRunListQuery,
  parseRunListQuery,
  type RunListQuery,
  runDurationMs,
  runListHref,
  type SortKey,
} from './run-list-query.js';

const PAGE_SIZE = 200;
const STATES = ['queued', 'running', 'waiting', 'success', 'fail', 'cancelled', 'interrupted'] as const;

/** The runs page. */
export function RunList() {
  const [runs, setRuns] = useState<Map<string, RunSummary> | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [query, setQuery] = useState(() => parseRunListQuery(location.search));
  const [limit, setLimit] = useState(PAGE_SIZE);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    // The URL is the truth: back/forward (and `navigate`) bring its filters and sort back.
    const update = () => setQuery(parseRunListQuery(location.search));
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  /** Changes the query: a new history entry, or (`replace`, for each key typed in the search) the same one. */
  const change = (next: Partial<RunListQuery>, options: { readonly replace?: boolean } = {}) =>
    navigate(runListHref({ ...query, ...next }), options);

  useEffect(() => {
    let pending: RunSummary[] = [];
    let scheduled = false;
    const load = () =>
      // Archived runs too: the "Show archived" filter hides them here, so it needs no reload.
      apiJson<{ pipelines: RunSummary[] }>('/pipelines?archived=include').then(
        (body) => {
          setRuns(new Map(body.pipelines.map((run) => [run.id, run])));
          setError(undefined);
        },
        (failure: unknown) => setError((failure as Error).message),
      );
    return onRunChanges({
      onRun: (run) => {
        pending.push(run);
        if (scheduled) return;
        scheduled = true;
        requestAnimationFrame(() => {
          scheduled = false;
          const batch = pending;
          pending = [];
          setRuns((previous) => {
            const next = new Map(previous);
            for (const changed of batch) next.set(changed.id, changed);
            return next;
          });
        });
      },
      onRemoved: (id) => {
        setRuns((previous) => {
          if (previous?.has(id) !== true) return previous;
          const next = new Map(previous);
          next.delete(id);
          return next;
        });
      },
      // (Re)load on every (re)connection: changes made while disconnected (a restarted server) are then included.
      onOpen: () => void load(),
    });
  }, []);

  const every = useMemo(() => [...(runs?.values() ?? [])], [runs]);
  // The runs the counts speak of: archived ones only when shown.
  const all = useMemo(() => every.filter((run) => isShownRun(run, query)), [every, query]);
  const graphs = useMemo(() => [...new Set(all.map((run) => run.graphName))].sort(), [all]);
  // Offline, the rows stop ticking: whether the runs still go on is not known until the server answers again.
  const lost = isLost(useConnectionState());
  const anyLive = !lost && all.some((run) => run.live);
  useEffect(() => {
    if (!anyLive) return;
    // Durations of live runs tick once a second (display only; the data comes from events).
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [anyLive]);

  // Only a duration sort depends on the clock (live runs' durations grow).
  const sortClock = query.sort === 'duration' ? now : 0;
  const matches = useMemo(() => {
    const sign = query.dir === 'asc' ? 1 : -1;
    return all
      .filter((run) => matchesRunListQuery(run, query))
      .sort((a, b) => sign * compareRuns(a, b, query.sort, sortClock));
  }, [all, query, sortClock]);
  const header = (key: SortKey, label: string) => (
    <SortHeader key={key} column={key} label={label} query={query} onSort={(next) => change(next)} />
  );

  return (
    <section class="view" aria-labelledby="runs-title">
      <div class="view-head">
        <h1 id="runs-title">Runs</h1>
        <a class="button" href="/new" onClick={onLinkClick}>
          New run
        </a>
      </div>
      <form class="filters" aria-label="Filter the runs" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status
          <select
            id="filter-state"
            value={query.status}
            onChange={(event) => change({ status: event.currentTarget.value })}
          >
            <option value="">all</option>
            {STATES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label>
          Graph
          <select
            id="filter-graph"
            value={query.graph}
            onChange={(event) => change({ graph: event.currentTarget.value })}
          >
            <option value="">all</option>
            {/* A graph named in the URL stays selectable before (or without) a run of it. */}
            {(query.graph === '' || graphs.includes(query.graph) ? graphs : [...graphs, query.graph]).map(
              (value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ),
            )}
          </select>
        </label>
        <label class="grow">
          Search
          <input
            id="filter-search"
            type="search"
            placeholder="id, graph, goal or failure"
            value={query.q}
            onInput={(event) => change({ q: event.currentTarget.value }, { replace: true })}
          />
        </label>
        <label class="check">
          <input
            id="filter-archived"
            type="checkbox"
            checked={query.archived}
            onChange={(event) => change({ archived: event.currentTarget.checked })}
          />
          Show archived
        </label>
      </form>
      <ErrorNote message={error} />
      {runs === undefined ? (
        <p class="muted">Loading runs…</p>
      ) : (
        <>
          <p class="muted" aria-live="polite" id="run-count">
            {matches.length === all.length
              ? `${all.length} run${all.length === 1 ? '' : 's'}`
              : `${matches.length} of ${all.length} run${all.length === 1 ? '' : 's'}`}
          </p>
          <div class="table-wrap">
            <table class="runs" id="run-table">
              <thead>
                <tr>
                  {header('status', 'Status')}
                  {header('graph', 'Graph')}
                  <th scope="col">Goal</th>
                  {header('start', 'Started')}
                  {header('duration', 'Duration')}
                  <th scope="col">Tokens</th>
                  {header('cost', 'Cost')}
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {matches.slice(0, limit).map((run) => (
                  <RunRow key={run.id} run={run} now={now} />
                ))}
              </tbody>
            </table>
          </div>
          {matches.length > limit && (
            <button type="button" class="button ghost" onClick={() => setLimit(limit + PAGE_SIZE)}>
              Show {Math.min(PAGE_SIZE, matches.length - limit)} more
            </button>
          )}
          {all.length === 0 && (
            <p class="muted">
              No runs yet.{' '}
              <a href="/new" onClick={onLinkClick}>
                Start one
              </a>
              .
            </p>
          )}
        </>
      )}
    </section>
  );
}

/**
 * A sortable column header: a button that sorts by the column (descending first for start, duration and cost,
 * ascending for words) and flips the direction when it already does; `aria-sort` says how the table is sorted.
 */
function SortHeader(props: {
  column: SortKey;
  label: string;
  query: RunListQuery;
  onSort: (next: Pick<RunListQuery, 'sort' | 'dir'>) => void;
}) {
  const { column, label, query } = props;
  const active = query.sort === column;
  const first = column === 'status' || column === 'graph' ? 'asc' : 'desc';
  const next = active ? (query.dir === 'asc' ? 'desc' : 'asc') : first;
  return (
    <th
      scope="col"
      data-sort={column}
      aria-sort={active ? (query.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button type="button" class="sort-button" onClick={() => props.onSort({ sort: column, dir: next })}>
        {label}
        <span aria-hidden="true" class="sort-arrow">
          {active ? (query.dir === 'asc' ? ' ▲' : ' ▼') : ''}
        </span>
      </button>
    </th>
  );
}

function RunRow({ run, now }: { run: RunSummary; now: number }) {
  const duration = runDurationMs(run, now);
  const tokens = run.usage === undefined ? undefined : run.usage.inputTokens + run.usage.outputTokens;
  return (
    <tr data-run={run.id} data-state={run.state} data-archived={run.archived === true ? '' : undefined}>
      <td data-label="Status">
        <StateBadge state={run.state} />
        <PartialFailure run={run} />
      </td>
      <td data-label="Graph">
        <a href={runHref(run.id)} onClick={onLinkClick} class="run-link">
          {run.graphName}
        </a>
        <div class="muted small mono">{run.id}</div>
        <RunMarkers run={run} />
      </td>
      <td data-label="Goal" class="goal-cell" title={run.goal}>
        {run.goal === '' ? <span class="muted">–</span> : run.goal}
        {run.failureReason !== undefined && run.state !== 'success' && (
          <div class="small fail-text">{run.failureReason}</div>
        )}
        {run.waitingQuestion !== undefined && run.state === 'waiting' && (
          <RowQuestion runId={run.id} question={run.waitingQuestion} />
        )}
      </td>
      <td data-label="Started">{formatTime(run.startedAt)}</td>
      <td data-label="Duration">{duration === undefined ? '–' : formatDuration(duration)}</td>
      <td data-label="Tokens">{tokens === undefined ? '–' : formatTokens(tokens)}</td>
      <td data-label="Cost">{formatCost(run.usage?.costUsd)}</td>
      <td data-label="Actions">
        <ArchiveButton run={run} />
      </td>
    </tr>
  );
}

/**
 * Archives a run that ended (`POST /pipelines/{id}/archive`; no confirmation: it is undone as easily) or unarchives
 * an archived one. The row changes through the `GET /events` stream; a refusal shows under the button.
 */
function ArchiveButton({ run }: { run: RunSummary }) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const archived = run.archived === true;
  if (run.live && !archived) return null;
  const toggle = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await apiJson(runPath(run.id, archived ? '/unarchive' : '/archive'), { method: 'POST', body: '{}' });
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        class="button small ghost archive-button"
        data-action={archived ? 'unarchive' : 'archive'}
        disabled={busy}
        aria-label={`${archived ? 'Unarchive' : 'Archive'} run ${run.id}`}
        onClick={() => void toggle()}
      >
        {archived ? 'Unarchive' : 'Archive'}
      </button>
      {error !== undefined && <ErrorNote message={error} />}
    </>
  );
}

/** The question a waiting run asks, answerable from the row: one button per option (free text on the run page). */
function RowQuestion({
  runId,
  question,
}: {
  runId: string;
  question: NonNullable<RunSummary['waitingQuestion']>;
}) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const answer = async (key: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await apiJson(runPath(runId, `/questions/${encodeURIComponent(question.id)}/answer`), {
        method: 'POST',
        body: JSON.stringify({ value: key }),
      });
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="small waiting-question">
      {question.stage} asks: {question.text}
      <div class="row-answers">
        {choicesOf(question).map((choice) => (
          <button
            type="button"
            class="button small choice"
            data-answer={choice.key}
            disabled={busy}
            aria-label={`${choice.key} ${choice.label}, answer to ${question.stage}`}
            onClick={() => void answer(choice.key)}
          >
            <kbd>{choice.key}</kbd> {choice.label}
          </button>
        ))}
      </div>
      {error !== undefined && <ErrorNote message={error} />}
    </div>
  );
}

/** Failed parallel branches and `foreach` items of a run that ended `success` anyway ("1 branch failed"). */
function PartialFailure({ run }: { run: RunSummary }) {
  if (run.state !== 'success') return null;
  const parts = [
    count(run.failedBranches, 'branch', 'branches'),
    count(run.failedItems, 'item', 'items'),
  ].filter((part) => part !== undefined);
  if (parts.length === 0) return null;
  return <div class="small fail-text partial-failure">{`${parts.join(', ')} failed`}</div>;
}

function count(value: number | undefined, one: string, many: string): string | undefined {
  return value === undefined || value === 0 ? undefined : `${value} ${value === 1 ? one : many}`;
}

/** How a run came to be: forked from another run (linked, at the stage it started after), resumed; archived. */
function RunMarkers({ run }: { run: RunSummary }) {
  const { forkedFrom, resumes } = run;
  const archived = run.archived === true;
  if (forkedFrom === undefined && resumes === undefined && !archived) return null;
  return (
    <div class="run-markers small">
      {archived && (
        <span class="marker" data-marker="archived">
          archived
        </span>
      )}
      {forkedFrom !== undefined && (
        <span class="marker" data-marker="fork">
          forked from{' '}
          <a href={runHref(forkedFrom.runId, forkedFrom.node)} onClick={onLinkClick} class="mono">
            {forkedFrom.runId}
          </a>{' '}
          after {forkedFrom.node}
          {forkedFrom.visit > 1 ? `@${forkedFrom.visit}` : ''}
        </span>
      )}
      {resumes !== undefined && (
        <span class="marker" data-marker="resumed">
          {resumes === 1 ? 'resumed' : `resumed ${resumes} times`}
        </span>
      )}
    </div>
  );
}

/** A run state as a coloured badge (text, not colour alone, carries the meaning). */
export function StateBadge({ state, id }: { state: string; id?: string }) {
  return (
    <span class={`badge state-${state}`} id={id} data-state={state}>
      {state}
    </span>
  );
}
