/**
 * The run page (`/runs/<id>`, or `/runs/<id>?child=<path>` for a child run inside it: a sub-pipeline's or manager
 * loop's own graph, stages and statuses; `?branch=a/x` for one parallel branch, its stages only): header with state, timing, tokens, where a fork came from, and the actions
 * the run allows (cancel, resume; none for a child run, whose top run has them), the waiting gates on top, the live graph, the stage pane of the selected node (`?stage=<node>`), and tabs for the
 * timeline, what the run changed in its workspace, the context, its checkpoint history (time travel) and the event log. Everything follows the run's SSE stream; events are applied in batches
 * once per animation frame.
 */
import type { PipelineEvent } from '@attractor/engine';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { parseChildRunPath, relateToChildRun } from '../../src/child-run-path.js';
import { apiFetch, apiJson, type RunDetails, type RunSummary, runPath, type ServerInfo } from './api.js';
import { CheckpointHistoryView } from './checkpoint-history-view.js';
import { ConfirmedButton } from './confirm-dialog.js';
import { connection, isLost, useConnectionState } from './connection-state.js';
import { ContextView } from './context-view.js';
import { RunChanges } from './diff-view.js';
import { ErrorNote } from './error-note.js';
import { EventLog } from './event-log.js';
import { openEventStream } from './event-stream.js';
import { formatCost, formatDuration, formatTime, formatTokens } from './format.js';
import { GatePanel } from './gate-panel.js';
import { GraphView } from './graph-view.js';
import { navigate, onLinkClick, runHref } from './router.js';
import { onRunChanges } from './run-changes.js';
import { StateBadge } from './run-list.js';
import { applyEvent, createRunState, type NodeStatus, parseBranchPath, type RunState } from './run-state.js';
import { StagePane } from './stage-pane.js';
import { Timeline } from './timeline.js';

/** Props of {@link RunView}. */
export interface RunViewProps {
  readonly runId: string;
  /** A child run inside run `runId` (`checks/child`): the page shows that child. */
  readonly child?: string | undefined;
  /** One parallel branch (`a`, or `a/x` for branch `x` of a block inside `a`): only its stages count. */
  readonly branch?: string | undefined;
  readonly stage: string | undefined;
  readonly server: ServerInfo | undefined;
}

type Tab = 'timeline' | 'changes' | 'context' | 'history' | 'events';

const TABS: readonly Tab[] = ['timeline', 'changes', 'context', 'history', 'events'];
const TAB_NAMES: Readonly<Record<Tab, string>> = {
  timeline: 'Timeline',
  changes: 'Changes',
  context: 'Context',
  history: 'History',
  events: 'Events',
};

/** The run page. */
export function RunView({ runId, child, branch, stage, server }: RunViewProps) {
  const childPath = child === undefined ? undefined : parseChildRunPath(child);
  const branchPath = branch === undefined ? undefined : parseBranchPath(branch);
  const state = useRef<RunState>(createRunState(runId, childPath, branchPath));
  const [version, setVersion] = useState(0);
  const [details, setDetails] = useState<RunDetails | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [actionError, setActionError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [tab, setTab] = useState<Tab>('timeline');
  const [streamKey, setStreamKey] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const [checkpoints, setCheckpoints] = useState(0);

  const shown = useRef<RunDetails | undefined>(undefined);
  const streamEnded = useRef(false);

  const loadDetails = () =>
    apiJson<RunDetails>(runPath(runId, '', child)).then(
      (body) => {
        setDetails(body);
        setError(undefined);
      },
      (failure: unknown) => setError((failure as Error).message),
    );

  useEffect(() => {
    void loadDetails();
    // Back from a lost connection (a restarted server): re-read what the events missed may have changed.
    return connection.onRestored(() => void loadDetails());
  }, [runId]);
  // Another client (a tab, the CLI) changed the run's state: re-read it; a resumed run streams again.
  shown.current = details;
  useEffect(() => {
    if (childPath !== undefined) return;
    return onRunChanges({
      onRun: (summary) => {
        const current = shown.current;
        if (summary.id !== runId || (current?.state === summary.state && current.live === summary.live))
          return;
        void loadDetails();
        if (summary.live && streamEnded.current) setStreamKey((key) => key + 1);
      },
    });
  }, [runId]);

  useEffect(() => {
    let pending: PipelineEvent[] = [];
    let frame: number | undefined;
    let refresh = false;
    let saved = 0;
    const flush = () => {
      frame = undefined;
      const batch = pending;
      pending = [];
      for (const event of batch) applyEvent(state.current, event);
      setVersion(state.current.version);
      if (saved > 0) setCheckpoints((count) => count + saved);
      saved = 0;
      if (refresh) {
        refresh = false;
        void loadDetails();
      }
    };
    streamEnded.current = false;
    const after = state.current.lastSeq;
    const close = openEventStream(
      runPath(runId, `/events${after > 0 ? `?lastEventId=${after}` : ''}`, child),
      {
        message: (data) => {
          const event = JSON.parse(data) as PipelineEvent;
          pending.push(event);
          if (event.type === 'checkpoint.saved') saved++;
          const own =
            childPath === undefined
              ? event.runId === runId
              : relateToChildRun(event, childPath)?.kind === 'own';
          if (
            own &&
            (event.type.startsWith('pipeline.') ||
              event.type === 'interview.started' ||
              event.type === 'interview.completed')
          )
            refresh = true;
          frame ??= requestAnimationFrame(flush);
        },
        end: () => {
          streamEnded.current = true;
          close();
          refresh = true;
          frame ??= requestAnimationFrame(flush);
        },
      },
    );
    return () => {
      close();
      if (frame !== undefined) cancelAnimationFrame(frame);
    };
  }, [runId, child, streamKey]);

  const live = details?.live === true && state.current.ended === undefined;
  // Offline, the clock stops: whether the run still goes on is not known until the server answers again.
  const lost = isLost(useConnectionState());
  const ticking = live && !lost;
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);

  const select = (nodeId: string | undefined) =>
    navigate(runHref(runId, nodeId, { child, branch }), { replace: false });

  const act = async (action: 'cancel' | 'resume' | 'archive' | 'unarchive') => {
    setBusy(true);
    setActionError(undefined);
    try {
      const summary = await apiJson<RunSummary>(runPath(runId, `/${action}`), { method: 'POST', body: '{}' });
      // The summary says all of the archive mark: an unarchived run has none (the old one must not stay).
      setDetails((current) => {
        if (current === undefined) return current;
        const { archived: _archived, ...rest } = current;
        return { ...rest, ...summary };
      });
      // A resumed run streams again: reopen the stream after the events already seen.
      if (action === 'resume') setStreamKey((key) => key + 1);
    } catch (failure) {
      setActionError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  /** Deletes the run (`DELETE /pipelines/{id}`) and goes back to the runs list. */
  const remove = async () => {
    setBusy(true);
    setActionError(undefined);
    try {
      await apiFetch(runPath(runId, ''), { method: 'DELETE' });
      navigate('/');
    } catch (failure) {
      setActionError((failure as Error).message);
      setBusy(false);
    }
  };

  /**
   * Forks after `from` (`node` or `node@visit`), with `dot` instead of the run's DOT and `context` values set over the
   * checkpoint's when given; rejects with the server's refusal.
   */
  const fork = async (from: string, dot?: string, context?: Record<string, unknown>) => {
    const summary = await apiJson<RunSummary>(runPath(runId, '/fork'), {
      method: 'POST',
      body: JSON.stringify({
        from,
        ...(dot === undefined ? {} : { dot }),
        ...(context === undefined ? {} : { context }),
      }),
    });
    navigate(runHref(summary.id));
  };

  const run = state.current;
  const startedMs = details === undefined ? undefined : Date.parse(details.startedAt);
  const endedMs = run.endedAtMs ?? (details?.endedAt === undefined ? undefined : Date.parse(details.endedAt));
  const duration = startedMs === undefined ? undefined : (endedMs ?? (live ? now : undefined))! - startedMs;
  let inputTokens = 0;
  let outputTokens = 0;
  let cost: number | undefined;
  for (const attempt of run.attempts) {
    inputTokens += attempt.inputTokens;
    outputTokens += attempt.outputTokens;
    if (attempt.costUsd !== undefined) cost = (cost ?? 0) + attempt.costUsd;
  }
  const questionIds = [...run.gates.keys()].sort().join(',');
  const displayState = details?.state ?? 'running';
  // Nodes without events of their own here keep the status the server knows: a fork's inherited stages.
  const statuses = useMemo(() => {
    // A branch's page shows the stages inside the branch only.
    if (branchPath !== undefined) return run.nodeStatus;
    const merged = new Map<string, NodeStatus>(Object.entries(details?.nodeStatuses ?? {}));
    for (const [nodeId, status] of run.nodeStatus) merged.set(nodeId, status);
    return merged;
  }, [version, details]);
  // A foreach node's progress on the graph: items done of all.
  const progress = useMemo(() => {
    const shown = new Map<string, string>();
    for (const view of run.foreachOf.values()) {
      const done = view.items.filter((item) => item.status !== 'pending' && item.status !== 'running').length;
      shown.set(view.nodeId, `${done}/${view.itemCount}`);
    }
    return shown;
  }, [version]);
  const forkedFrom = details?.forkedFrom;
  const inherited =
    forkedFrom === undefined ||
    stage === undefined ||
    branchPath !== undefined ||
    run.attemptsByNode.has(stage)
      ? undefined
      : details?.nodeStatuses[stage];

  return (
    <section class="view run-view" aria-labelledby="run-title">
      <div class="run-header">
        <div>
          <p class="crumbs">
            <a href="/" onClick={onLinkClick}>
              Runs
            </a>{' '}
            ›
            {childPath !== undefined && (
              <>
                {' '}
                <a href={runHref(runId)} onClick={onLinkClick} id="parent-run-link">
                  {runId}
                </a>{' '}
                › child run of{' '}
                <a
                  href={runHref(runId, childPath.parentNode, { child: parentChildPath(childPath.path) })}
                  onClick={onLinkClick}
                >
                  <code>{childPath.parentNode}</code>
                </a>
              </>
            )}
          </p>
          <h1 id="run-title">{details?.graphName ?? runId}</h1>
          {branchPath !== undefined && (
            <p class="branch-scope" id="branch-scope">
              {branchPath.at(-1)!.startsWith('items/') ? 'Item' : 'Parallel branch'}{' '}
              <code>{branchPath.map((part) => part.replace(/^items\//, '')).join(' › ')}</code>
              {run.fanOfBranch.get(branch!) !== undefined && (
                <>
                  {' '}
                  of{' '}
                  <a
                    href={runHref(runId, run.fanOfBranch.get(branch!), { child })}
                    onClick={onLinkClick}
                    id="branch-fan-link"
                  >
                    <code>{run.fanOfBranch.get(branch!)}</code>
                  </a>
                </>
              )}
              : only the stages inside it are coloured.{' '}
              <a href={runHref(runId, undefined, { child })} onClick={onLinkClick}>
                Whole run
              </a>
            </p>
          )}
          <p class="muted small mono" id="run-id">
            {childPath === undefined ? runId : `${runId} / ${childPath.path}`}
          </p>
          {forkedFrom !== undefined && (
            <p class="forked-from" id="forked-from">
              Forked from{' '}
              <a href={runHref(forkedFrom.runId, forkedFrom.node)} onClick={onLinkClick}>
                {forkedFrom.runId}
              </a>{' '}
              after{' '}
              <code>
                {forkedFrom.node}@{forkedFrom.visit}
              </code>
            </p>
          )}
          {details !== undefined && details.goal !== '' && <p class="goal">{details.goal}</p>}
        </div>
        <div class="run-actions">
          <StateBadge state={displayState} id="run-state" />
          {details?.archived === true && childPath === undefined && (
            <span class="marker" data-marker="archived" id="run-archived">
              archived
            </span>
          )}
          {details?.live === true && childPath === undefined && (
            <ConfirmedButton
              id="cancel"
              label="Cancel"
              disabled={busy}
              title="Cancel this run?"
              text="The stage running now is stopped and the run ends as cancelled. A cancelled run can be resumed from its last checkpoint."
              confirmLabel="Cancel the run"
              dismissLabel="Keep running"
              onConfirm={() => void act('cancel')}
            />
          )}
          {details?.live === false && details.resumable && childPath === undefined && (
            <button
              type="button"
              class="button"
              id="resume-button"
              disabled={busy}
              onClick={() => act('resume')}
            >
              Resume
            </button>
          )}
          {details?.live === false && childPath === undefined && (
            <button
              type="button"
              class="button ghost"
              id="archive-button"
              disabled={busy}
              onClick={() => act(details.archived === true ? 'unarchive' : 'archive')}
            >
              {details.archived === true ? 'Unarchive' : 'Archive'}
            </button>
          )}
          {details?.live === false && childPath === undefined && (
            <ConfirmedButton
              id="delete"
              label="Delete"
              disabled={busy}
              title="Delete this run?"
              text="Its run directory goes for good: checkpoints, event log, stage files. Runs forked from it keep their own."
              confirmLabel="Delete the run"
              dismissLabel="Keep it"
              onConfirm={() => void remove()}
            />
          )}
        </div>
      </div>
      <dl class="facts run-facts">
        <div>
          <dt>Started</dt>
          <dd>{details === undefined ? '–' : formatTime(details.startedAt)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{duration === undefined || Number.isNaN(duration) ? '–' : formatDuration(duration)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>
            {inputTokens + outputTokens === 0
              ? '–'
              : `${formatTokens(inputTokens)} in / ${formatTokens(outputTokens)} out`}
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCost(cost)}</dd>
        </div>
        <div>
          <dt>Stages</dt>
          <dd>{run.attempts.length}</dd>
        </div>
      </dl>
      {details?.failureReason !== undefined && displayState !== 'success' && (
        <p class="fail-text" id="run-failure">
          {details.failureReason}
        </p>
      )}
      <ErrorNote message={error} id="run-error" />
      <ErrorNote message={actionError} id="action-error" />
      {/* A stopped run's page shows no gate, even before its stream delivers the stop (cancel answers first). */}
      {(displayState === 'running' || displayState === 'waiting') && (
        <GatePanel runId={runId} questionIds={questionIds} />
      )}
      {childPath !== undefined && child !== undefined && details === undefined && error !== undefined && (
        <p class="muted">
          <a href={runHref(runId)} onClick={onLinkClick}>
            Back to run {runId}
          </a>
        </p>
      )}
      <div class={`run-grid${stage === undefined ? '' : ' with-pane'}`}>
        <section class="card graph-card" aria-labelledby="graph-title">
          <h2 id="graph-title">Graph</h2>
          <GraphView
            runId={runId}
            child={child}
            statuses={statuses}
            running={run.running}
            version={version}
            selected={stage}
            onSelect={select}
            live={live}
            progress={progress}
          />
        </section>
        {stage !== undefined && (
          <StagePane
            runId={runId}
            child={child}
            branch={branch}
            inherited={
              inherited === undefined || forkedFrom === undefined
                ? undefined
                : { runId: forkedFrom.runId, status: inherited }
            }
            state={run}
            version={version}
            now={now}
            nodeId={stage}
            server={server}
            onClose={() => {
              select(undefined);
              // Back to where the pane was opened from: its node in the graph.
              document.getElementById(`node-${stage}`)?.focus();
            }}
            onFork={
              childPath === undefined ? (from, edits) => fork(from, edits?.dot, edits?.context) : undefined
            }
          />
        )}
      </div>
      <section class="card" aria-label="Run details">
        <div class="tabs" role="tablist" aria-label="Run details">
          {TABS.filter((name) => name !== 'changes' || childPath === undefined).map((name) => (
            <button
              type="button"
              role="tab"
              key={name}
              id={`tab-${name}`}
              aria-selected={tab === name}
              aria-controls={`panel-${name}`}
              tabIndex={tab === name ? 0 : -1}
              onClick={() => setTab(name)}
              onKeyDown={(event) => {
                const names = TABS.filter((other) => other !== 'changes' || childPath === undefined);
                const at = names.indexOf(name);
                const next =
                  event.key === 'ArrowRight'
                    ? names[(at + 1) % names.length]
                    : event.key === 'ArrowLeft'
                      ? names[(at + names.length - 1) % names.length]
                      : undefined;
                if (next !== undefined) {
                  event.preventDefault();
                  setTab(next);
                  document.getElementById(`tab-${next}`)?.focus();
                }
              }}
            >
              {TAB_NAMES[name]}
            </button>
          ))}
        </div>
        <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
          {tab === 'timeline' ? (
            <Timeline state={run} now={now} onSelect={select} />
          ) : tab === 'changes' ? (
            <RunChanges runId={runId} checkpoints={checkpoints} />
          ) : tab === 'context' ? (
            <ContextView runId={runId} child={child} checkpoints={checkpoints} />
          ) : tab === 'history' ? (
            <CheckpointHistoryView
              runId={runId}
              child={child}
              checkpoints={checkpoints}
              onFork={
                childPath !== undefined || server?.capabilities.fork !== true
                  ? undefined
                  : (from, edits) => fork(from, edits.dot, edits.context)
              }
            />
          ) : (
            <EventLog events={run.events} />
          )}
        </div>
      </section>
    </section>
  );
}

/** The child path of the run that started the child at `path` (`undefined` for the top run). */
function parentChildPath(path: string): string | undefined {
  const parts = path.split('/');
  // Drop the child's directory and the node's stage directory path back to the previous `child[-n]` segment.
  for (let index = parts.length - 2; index >= 0; index--)
    if (/^child(?:-[0-9]+)?$/.test(parts[index]!)) return parts.slice(0, index + 1).join('/');
  return undefined;
}
