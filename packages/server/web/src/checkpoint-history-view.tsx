/**
 * Time travel: the run's checkpoints (`GET /pipelines/{id}/checkpoints`, paged), each a button; the chosen one shows
 * the context at that point, what changed since the previous checkpoint (keys added, changed, removed), what its
 * stage changed in the workspace, and "Fork from here" with edited context values. New checkpoints of a live run are
 * appended as `checkpoint.saved` events arrive (the history only grows).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CheckpointHistoryEntry, CheckpointHistoryPage } from '../../src/index.js';
import { apiJson, runPath } from './api.js';
import { StageChanges } from './diff-view.js';
import { ErrorNote } from './error-note.js';
import { type ForkEdits, ForkForm } from './fork-form.js';
import { formatTime } from './format.js';
import { JsonTree } from './json-tree.js';
import './checkpoint-history.css';

/** Checkpoints fetched per request. */
const PAGE_SIZE = 100;

/** One key's change between two checkpoints. */
export interface ContextChange {
  readonly key: string;
  readonly kind: 'added' | 'changed' | 'removed';
  readonly before?: unknown;
  readonly after?: unknown;
}

/** The keys added, changed and removed from `before` to `after`, sorted by key. */
export function diffContext(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): ContextChange[] {
  const changes: ContextChange[] = [];
  for (const [key, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, key)) changes.push({ key, kind: 'added', after: value });
    else if (JSON.stringify(before[key]) !== JSON.stringify(value))
      changes.push({ key, kind: 'changed', before: before[key], after: value });
  }
  for (const [key, value] of Object.entries(before))
    if (!Object.hasOwn(after, key)) changes.push({ key, kind: 'removed', before: value });
  return changes.sort((a, b) => a.key.localeCompare(b.key));
}

/** The History tab; `checkpoints` counts the checkpoints seen on the event stream (a change reads the new ones). */
export function CheckpointHistoryView({
  runId,
  child,
  checkpoints,
  onFork,
}: {
  runId: string;
  /** A child run inside run `runId`: its history (no workspace changes, no fork). */
  child?: string | undefined;
  checkpoints: number;
  /** Forks after a checkpoint; none for a child run. */
  onFork?: ((from: string, edits: ForkEdits) => Promise<void>) | undefined;
}) {
  const [entries, setEntries] = useState<readonly CheckpointHistoryEntry[]>([]);
  const [total, setTotal] = useState<number | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [selected, setSelected] = useState<number | undefined>();
  const [forking, setForking] = useState(false);
  /** Which run's history is shown: a read for an earlier run or child is dropped. */
  const generation = useRef(0);
  /** The generation a read is under way for, if any (one at a time). */
  const loading = useRef<number | undefined>(undefined);
  /** Whether more checkpoints were saved while a read was under way (read again after it). */
  const again = useRef(false);
  const loaded = useRef<readonly CheckpointHistoryEntry[]>([]);

  /** Reads the next page after the entries loaded so far; `all` goes on until the history is read. */
  const loadMore = async (all: boolean) => {
    if (loading.current === generation.current) {
      again.current = true;
      return;
    }
    const mine = generation.current;
    loading.current = mine;
    try {
      for (;;) {
        const page = await apiJson<CheckpointHistoryPage>(
          runPath(runId, `/checkpoints?offset=${loaded.current.length}&limit=${PAGE_SIZE}`, child),
        );
        if (mine !== generation.current) return;
        loaded.current = [...loaded.current, ...page.checkpoints];
        setEntries(loaded.current);
        setTotal(page.total);
        setError(undefined);
        if (!all || page.checkpoints.length === 0 || loaded.current.length >= page.total) break;
      }
    } catch (failure) {
      if (mine === generation.current) setError((failure as Error).message);
    } finally {
      if (loading.current === mine) loading.current = undefined;
      if (again.current && mine === generation.current) {
        again.current = false;
        void loadMore(false);
      }
    }
  };

  useEffect(() => {
    generation.current++;
    again.current = false;
    loaded.current = [];
    setEntries([]);
    setTotal(undefined);
    setSelected(undefined);
    setForking(false);
  }, [runId, child]);
  useEffect(() => {
    void loadMore(false);
  }, [runId, child, checkpoints]);

  if (error !== undefined && entries.length === 0) return <ErrorNote message={error} id="history-error" />;
  if (total === undefined) return <p class="muted">Loading the checkpoints…</p>;
  if (entries.length === 0) return <p class="muted">No checkpoint yet.</p>;
  const chosen = selected === undefined ? undefined : entries[selected];
  const previous = selected === undefined || selected === 0 ? undefined : entries[selected - 1];
  return (
    <div class="history" id="checkpoint-history">
      <div class="history-list-wrap">
        <p class="muted small" id="history-help">
          A checkpoint is written after every stage. Choose one to see the context at that point.
        </p>
        <ol class="history-list" aria-describedby="history-help">
          {entries.map((entry, position) => (
            <li key={entry.index}>
              <button
                type="button"
                class="history-item"
                data-index={entry.index}
                aria-pressed={position === selected}
                onClick={() => {
                  setSelected(position);
                  setForking(false);
                }}
              >
                <span class="history-node">
                  {entry.node === null ? (
                    'Run started'
                  ) : (
                    <>
                      <code>{entry.node}</code>
                      {entry.visit !== null && entry.visit > 1 ? ` visit ${entry.visit}` : ''}
                    </>
                  )}
                </span>
                <span class="muted small">
                  #{entry.index} · {formatTime(entry.timestamp)}
                </span>
              </button>
            </li>
          ))}
        </ol>
        {entries.length < total && (
          <button type="button" class="button ghost small" id="history-more" onClick={() => loadMore(true)}>
            Load all {total} checkpoints
          </button>
        )}
        <ErrorNote message={error} />
      </div>
      <div class="history-detail" aria-live="polite">
        {chosen === undefined ? (
          <p class="muted">Choose a checkpoint.</p>
        ) : (
          <CheckpointDetail
            runId={runId}
            child={child}
            entry={chosen}
            previous={previous}
            forking={forking}
            onForkToggle={() => setForking((open) => !open)}
            onFork={onFork}
          />
        )}
      </div>
    </div>
  );
}

/** The chosen checkpoint: its diff from the previous one, its whole context, its stage's changes and the fork form. */
function CheckpointDetail({
  runId,
  child,
  entry,
  previous,
  forking,
  onForkToggle,
  onFork,
}: {
  runId: string;
  child: string | undefined;
  entry: CheckpointHistoryEntry;
  previous: CheckpointHistoryEntry | undefined;
  forking: boolean;
  onForkToggle: () => void;
  onFork: ((from: string, edits: ForkEdits) => Promise<void>) | undefined;
}) {
  const changes = diffContext(previous?.context ?? {}, entry.context);
  const keys = Object.keys(entry.context).sort((a, b) => a.localeCompare(b));
  return (
    <section class="checkpoint-detail" id="checkpoint-detail" aria-labelledby="checkpoint-title">
      <h3 id="checkpoint-title">
        {entry.node === null ? (
          'When the run started'
        ) : (
          <>
            After <code>{entry.at}</code>
          </>
        )}
        <span class="muted small"> · checkpoint #{entry.index}</span>
      </h3>
      <p class="muted small">
        {formatTime(entry.timestamp)}
        {entry.nextNode === null ? '' : ` · next: ${entry.nextNode}`}
      </p>
      {onFork !== undefined && entry.at !== null && (
        <p>
          <button
            type="button"
            class="button"
            id="history-fork-open"
            aria-expanded={forking}
            aria-controls="history-fork-form"
            onClick={onForkToggle}
          >
            Fork from here
          </button>
        </p>
      )}
      {forking && onFork !== undefined && entry.at !== null && (
        <ForkForm runId={runId} at={entry.at} onFork={onFork} idPrefix="history" />
      )}
      <h4>{previous === undefined ? 'Context' : `Changed since checkpoint #${previous.index}`}</h4>
      {changes.length === 0 ? (
        <p class="muted" id="context-diff">
          No context value changed.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="kv context-diff" id="context-diff">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Change</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((change) => (
                <tr key={change.key} data-key={change.key} data-change={change.kind}>
                  <th scope="row">
                    <code>{change.key}</code>
                  </th>
                  <td>
                    <span class={`badge ${CHANGE_BADGE[change.kind]}`}>{change.kind}</span>
                  </td>
                  <td>
                    {change.kind === 'changed' && (
                      <div class="context-before">
                        <span class="muted small">was </span>
                        <JsonTree value={change.before} />
                      </div>
                    )}
                    {change.kind === 'removed' ? (
                      <del>
                        <JsonTree value={change.before} />
                      </del>
                    ) : (
                      <JsonTree value={change.after} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <details class="whole-context" id="whole-context">
        <summary>The whole context here ({keys.length} keys)</summary>
        <div class="table-wrap">
          <table class="kv">
            <tbody>
              {keys.map((key) => (
                <tr key={key} data-key={key}>
                  <th scope="row">
                    <code>{key}</code>
                  </th>
                  <td>
                    <JsonTree value={entry.context[key]} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      {child === undefined && entry.dir !== null && (
        <StageChanges runId={runId} dir={entry.dir} version={String(entry.index)} />
      )}
    </section>
  );
}

/** The badge colour of a kind of change (the status colours, readable in both themes). */
const CHANGE_BADGE: Readonly<Record<ContextChange['kind'], string>> = {
  added: 'state-success',
  changed: 'state-retry',
  removed: 'state-fail',
};
