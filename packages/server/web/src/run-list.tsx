/**
 * The runs page: every run of the server (live and past) with status, graph, goal, start, duration, tokens and
 * cost; filters by status and graph and a text search. It loads the list once and then follows `GET /events`, which
 * sends a run's new summary whenever it changes — no polling. Renders the first {@link PAGE_SIZE} matches and more
 * on request, so 1,000 runs stay quick.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiJson, type RunSummary } from './api.js';
import { ErrorNote } from './error-note.js';
import { openEventStream } from './event-stream.js';
import { formatCost, formatDuration, formatTime, formatTokens } from './format.js';
import { onLinkClick, runHref } from './router.js';

const PAGE_SIZE = 200;
const STATES = ['queued', 'running', 'waiting', 'success', 'fail', 'cancelled', 'interrupted'] as const;

/** The runs page. */
export function RunList() {
  const [runs, setRuns] = useState<Map<string, RunSummary> | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [state, setState] = useState('');
  const [graph, setGraph] = useState('');
  const [search, setSearch] = useState('');
  const [limit, setLimit] = useState(PAGE_SIZE);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    let pending: RunSummary[] = [];
    let scheduled = false;
    const load = () =>
      apiJson<{ pipelines: RunSummary[] }>('/pipelines').then(
        (body) => {
          setRuns(new Map(body.pipelines.map((run) => [run.id, run])));
          setError(undefined);
        },
        (failure: unknown) => setError((failure as Error).message),
      );
    const close = openEventStream(
      '/events',
      {
        run: (data) => {
          pending.push(JSON.parse(data) as RunSummary);
          if (scheduled) return;
          scheduled = true;
          requestAnimationFrame(() => {
            scheduled = false;
            const batch = pending;
            pending = [];
            setRuns((previous) => {
              const next = new Map(previous);
              for (const run of batch) next.set(run.id, run);
              return next;
            });
          });
        },
      },
      // (Re)load on every (re)connection: changes made while disconnected are then included.
      { onOpen: () => void load(), onError: setError },
    );
    return close;
  }, []);

  const all = useMemo(
    () =>
      [...(runs?.values() ?? [])].sort(
        (a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id),
      ),
    [runs],
  );
  const graphs = useMemo(() => [...new Set(all.map((run) => run.graphName))].sort(), [all]);
  const anyLive = all.some((run) => run.live);
  useEffect(() => {
    if (!anyLive) return;
    // Durations of live runs tick once a second (display only; the data comes from events).
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [anyLive]);

  const needle = search.trim().toLowerCase();
  const matches = all.filter(
    (run) =>
      (state === '' || run.state === state) &&
      (graph === '' || run.graphName === graph) &&
      (needle === '' ||
        run.id.toLowerCase().includes(needle) ||
        run.graphName.toLowerCase().includes(needle) ||
        run.goal.toLowerCase().includes(needle) ||
        (run.failureReason ?? '').toLowerCase().includes(needle)),
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
          <select id="filter-state" value={state} onChange={(event) => setState(event.currentTarget.value)}>
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
          <select id="filter-graph" value={graph} onChange={(event) => setGraph(event.currentTarget.value)}>
            <option value="">all</option>
            {graphs.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Search
          <input
            id="filter-search"
            type="search"
            placeholder="id, graph, goal or failure"
            value={search}
            onInput={(event) => setSearch(event.currentTarget.value)}
          />
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
                  <th scope="col">Status</th>
                  <th scope="col">Graph</th>
                  <th scope="col">Goal</th>
                  <th scope="col">Started</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Cost</th>
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

function RunRow({ run, now }: { run: RunSummary; now: number }) {
  const started = Date.parse(run.startedAt);
  const ended = run.endedAt === undefined ? undefined : Date.parse(run.endedAt);
  const duration = ended !== undefined ? ended - started : run.live ? now - started : undefined;
  const tokens = run.usage === undefined ? undefined : run.usage.inputTokens + run.usage.outputTokens;
  return (
    <tr data-run={run.id} data-state={run.state}>
      <td data-label="Status">
        <StateBadge state={run.state} />
      </td>
      <td data-label="Graph">
        <a href={runHref(run.id)} onClick={onLinkClick} class="run-link">
          {run.graphName}
        </a>
        <div class="muted small mono">{run.id}</div>
      </td>
      <td data-label="Goal" class="goal-cell" title={run.goal}>
        {run.goal === '' ? <span class="muted">–</span> : run.goal}
        {run.failureReason !== undefined && run.state !== 'success' && (
          <div class="small fail-text">{run.failureReason}</div>
        )}
      </td>
      <td data-label="Started">{formatTime(run.startedAt)}</td>
      <td data-label="Duration">{duration === undefined ? '–' : formatDuration(duration)}</td>
      <td data-label="Tokens">{tokens === undefined ? '–' : formatTokens(tokens)}</td>
      <td data-label="Cost">{formatCost(run.usage?.costUsd)}</td>
    </tr>
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
