/**
 * The stage pane of one node: every visit as a history (in parallel branches too), and per attempt its status,
 * duration, tokens and cost, the model's text as it streams in, agent tool calls with arguments and results, log
 * lines, and tool output live (following the newest line unless scrolled up); what the visit changed in the run's workspace (its commit's files and patch); then the stage files (full prompt, response, status.json, stdout, stderr). Files are
 * re-read when an attempt starts or ends (event-driven, never on a timer).
 */
import { useEffect, useState } from 'preact/hooks';
import { apiJson, apiText, runPath, type ServerInfo, type StageDirectory } from './api.js';
import { StageChanges } from './diff-view.js';
import { ErrorNote } from './error-note.js';
import { FollowingPre } from './following-pre.js';
import { ForeachItems } from './foreach-items.js';
import { type ForkEdits, ForkForm } from './fork-form.js';
import { formatCost, formatDuration, formatTokens } from './format.js';
import { JsonTree } from './json-tree.js';
import { onLinkClick, runHref } from './router.js';
import {
  type AttemptView,
  type BranchView,
  branchPathLabel,
  type ChildRunView,
  foreachesOfNode,
  type RunState,
  stageDirectoryOf,
} from './run-state.js';

/** Props of {@link StagePane}. */
export interface StagePaneProps {
  readonly runId: string;
  /** A child run inside run `runId` (`checks/child`) whose stage this is. */
  readonly child?: string | undefined;
  /** The parallel branch the page shows (`a/x`), if it shows one. */
  readonly branch?: string | undefined;
  /** For a fork's stage that ran in the source run only: that run and the stage's status there. */
  readonly inherited?: { readonly runId: string; readonly status: string } | undefined;
  readonly state: RunState;
  readonly version: number;
  readonly nodeId: string;
  readonly server: ServerInfo | undefined;
  /** The clock of the page (ms since the epoch, ticking while the run is live): running attempts count from it. */
  readonly now: number;
  readonly onClose: () => void;
  /**
   * Forks the run after this stage (`from`: the node id, its latest visit), with an edited DOT and context values when
   * given (rejects with the server's refusal); without it (a child run) no fork is offered.
   */
  readonly onFork?: ((from: string, edits?: ForkEdits) => Promise<void>) | undefined;
}

/** Largest stage file shown inline, in bytes. */
const INLINE_LIMIT = 512 * 1024;

/** The stage pane. */
export function StagePane(props: StagePaneProps) {
  const { state, nodeId } = props;
  const attempts = state.attemptsByNode.get(nodeId) ?? [];
  // One group per (branch path, visit): the visits of the node, oldest first.
  const visits = new Map<string, AttemptView[]>();
  for (const attempt of attempts) {
    const key = `${attempt.branchPath.join('/')}#${attempt.visit}`;
    visits.set(key, [...(visits.get(key) ?? []), attempt]);
  }
  const dirs = [...new Set(attempts.map((attempt) => stageDirectoryOf(state, attempt)))];
  const ended = attempts.filter((attempt) => attempt.status !== 'running').length;
  const [listings, setListings] = useState(new Map<string, StageDirectory>());
  const [error, setError] = useState<string | undefined>();
  const dirKey = dirs.join('\n');

  useEffect(() => {
    let cancelled = false;
    const targets = dirKey === '' ? [nodeId] : dirKey.split('\n');
    Promise.all(
      targets.map((dir) =>
        apiJson<StageDirectory>(
          runPath(props.runId, `/stage?dir=${encodeURIComponent(dir)}`, props.child),
        ).then(
          (listing) => [dir, listing] as const,
          () => undefined,
        ),
      ),
    ).then(
      (found) => {
        if (cancelled) return;
        setListings(new Map(found.filter((entry) => entry !== undefined)));
      },
      (failure: unknown) => setError((failure as Error).message),
    );
    return () => {
      cancelled = true;
    };
  }, [props.runId, props.child, nodeId, dirKey, attempts.length, ended]);

  // Escape closes the pane, unless a modal dialog is open (Escape is then the dialog's) or focus is in a text field.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      if (document.querySelector('dialog[open]') !== null) return;
      if ((event.target as Element | null)?.closest?.('input, textarea, select') != null) return;
      event.preventDefault();
      props.onClose();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [props.onClose]);

  const onFork = props.onFork;
  const canFork =
    onFork !== undefined &&
    props.server?.capabilities.fork === true &&
    // A checkpoint follows a stage of the top-level walk only: a stage inside a parallel branch cannot be forked.
    attempts.some((a) => a.status === 'success' && a.branchPath.length === 0);
  const childRun = state.children.get(nodeId);
  const [forkError, setForkError] = useState<string | undefined>();
  const [forking, setForking] = useState(false);
  useEffect(() => setForkError(undefined), [nodeId]);
  const runFork = () => {
    setForking(true);
    setForkError(undefined);
    onFork!(nodeId).then(
      () => setForking(false),
      (failure: unknown) => {
        setForking(false);
        setForkError((failure as Error).message);
      },
    );
  };
  return (
    <section class="card stage-pane" id="stage-pane" aria-labelledby="stage-title" data-node={nodeId}>
      <div class="pane-head">
        <h2 id="stage-title">
          Stage <code>{nodeId}</code>
        </h2>
        <span class="spacer" />
        {canFork && (
          <button type="button" class="button" id="fork-button" disabled={forking} onClick={runFork}>
            Fork from here
          </button>
        )}
        <button
          type="button"
          class="button ghost small"
          onClick={props.onClose}
          aria-label="Close the stage pane"
          aria-keyshortcuts="Escape"
        >
          Close
        </button>
      </div>
      <ErrorNote message={error} />
      {canFork && (
        <details class="fork-edit" id="fork-edit">
          <summary>Fork from here with edited context values or pipeline</summary>
          <ForkForm runId={props.runId} at={nodeId} onFork={onFork!} idPrefix="stage" />
        </details>
      )}
      <ErrorNote message={forkError} id="fork-error" preformatted />
      {attempts.length === 0 &&
        (props.inherited === undefined ? (
          <p class="muted">This node has not run yet.</p>
        ) : (
          <p class="inherited" id="inherited-stage">
            Inherited: this stage ran ({props.inherited.status.replace('_', ' ')}) in{' '}
            <a href={runHref(props.inherited.runId, nodeId)} onClick={onLinkClick}>
              {props.inherited.runId}
            </a>
            , the run this one was forked from.
          </p>
        ))}
      {childRun !== undefined && <ChildRun runId={props.runId} child={childRun} />}
      {state.branchesOfFan.get(nodeId) !== undefined && (
        <Branches
          runId={props.runId}
          child={props.child}
          branches={state.branchesOfFan.get(nodeId)!}
          current={props.branch}
        />
      )}
      {foreachesOfNode(state, nodeId).map((view) => (
        <ForeachItems
          key={view.nodeId}
          runId={props.runId}
          child={props.child}
          current={props.branch}
          view={view}
          state={state}
          nodeId={nodeId}
          now={props.now}
        />
      ))}
      {[...visits.entries()].map(([key, visitAttempts], index) => {
        const first = visitAttempts[0]!;
        const dir = stageDirectoryOf(state, first);
        const listing = listings.get(dir);
        const visitDir =
          listing?.visits.includes(first.visit) === true ? `${dir}/visits/${first.visit}` : dir;
        const latest = index === visits.size - 1;
        return (
          <details class="visit" key={key} open={latest} data-visit={first.visit}>
            <summary>
              Visit {first.visit}
              {first.branchPath.length > 0 && (
                <span class="muted">
                  {' '}
                  · {first.branchPath.at(-1)!.startsWith('items/') ? '' : 'branch '}
                  {branchPathLabel(first.branchPath)}
                </span>
              )}{' '}
              <span class={`badge state-${visitAttempts.at(-1)!.status}`}>
                {visitAttempts.at(-1)!.status}
              </span>
              {visitAttempts.length > 1 && visitAttempts.at(-1)!.endedAtMs !== undefined && (
                <span class="muted small visit-total">
                  {' '}
                  {visitAttempts.length} attempts,{' '}
                  {formatDuration(visitAttempts.at(-1)!.endedAtMs! - first.startedAtMs)} in all
                </span>
              )}
            </summary>
            {visitAttempts.map((attempt) => (
              <Attempt key={attempt.key} attempt={attempt} now={props.now} />
            ))}
            {props.child === undefined && (
              <StageChanges runId={props.runId} dir={visitDir} version={`${attempts.length}:${ended}`} />
            )}
            <StageFiles
              runId={props.runId}
              child={props.child}
              dir={visitDir}
              version={`${attempts.length}:${ended}`}
            />
          </details>
        );
      })}
      {attempts.length === 0 && props.inherited === undefined && (
        <StageFiles runId={props.runId} child={props.child} dir={nodeId} version="0" />
      )}
    </section>
  );
}

function Attempt({ attempt, now }: { attempt: AttemptView; now: number }) {
  const tokens = attempt.inputTokens + attempt.outputTokens;
  return (
    <div class="attempt" data-attempt={attempt.attempt} data-status={attempt.status}>
      <dl class="facts">
        <div>
          <dt>Attempt</dt>
          <dd>
            {attempt.attempt}
            {attempt.resumed > 0 && (
              <span class="muted"> (resumed{attempt.resumed > 1 ? ` ×${attempt.resumed}` : ''})</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd class={`status-text status-${attempt.status}`}>{attempt.status}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>
            {attempt.durationMs !== undefined
              ? formatDuration(attempt.durationMs)
              : attempt.status === 'running'
                ? `running… ${formatDuration(Math.max(0, now - attempt.startedAtMs))}`
                : '–'}
          </dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>
            {tokens === 0
              ? '–'
              : `${formatTokens(attempt.inputTokens)} in / ${formatTokens(attempt.outputTokens)} out`}
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCost(attempt.costUsd)}</dd>
        </div>
        <div>
          <dt>Handler</dt>
          <dd>{attempt.handlerType}</dd>
        </div>
      </dl>
      {attempt.error !== undefined && <p class="fail-text">{attempt.error}</p>}
      {attempt.text !== '' && (
        <div class="stream">
          <h3>Response{attempt.status === 'running' ? ' (streaming)' : ''}</h3>
          <FollowingPre
            class="live-text"
            text={attempt.text}
            ariaLive={attempt.status === 'running' ? 'polite' : 'off'}
          />
        </div>
      )}
      {attempt.toolCalls.length > 0 && (
        <div class="tool-calls">
          <h3>Tool calls</h3>
          {attempt.toolCalls.map((call) => (
            <details key={call.callId} class={`tool-call${call.isError === true ? ' is-error' : ''}`}>
              <summary>
                <code>{call.toolName}</code>{' '}
                <span class="muted small">
                  {call.output === undefined
                    ? 'running…'
                    : `${call.isError === true ? 'error' : 'done'} in ${formatDuration(call.durationMs ?? 0)}`}
                </span>
              </summary>
              <h4>Arguments</h4>
              <JsonTree value={call.arguments} />
              {call.output !== undefined && (
                <>
                  <h4>Result</h4>
                  <pre class="file-text">{call.output}</pre>
                </>
              )}
            </details>
          ))}
        </div>
      )}
      {(attempt.stdout !== '' || attempt.stderr !== '') && (
        <div class="tool-output">
          {attempt.stdout !== '' && (
            <>
              <h3>stdout{attempt.status === 'running' ? ' (live)' : ''}</h3>
              <FollowingPre class="file-text" text={attempt.stdout} />
            </>
          )}
          {attempt.stderr !== '' && (
            <>
              <h3>stderr{attempt.status === 'running' ? ' (live)' : ''}</h3>
              <FollowingPre class="file-text stderr" text={attempt.stderr} />
            </>
          )}
        </div>
      )}
      {attempt.logs.length > 0 && (
        <ul class="logs">
          {attempt.logs.map((line, index) => (
            <li key={index} class={`log-${line.level}`}>
              <span class="muted small">{line.level}</span> {line.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The served files of a stage directory, each readable in full. */
function StageFiles({
  runId,
  child,
  dir,
  version,
}: {
  runId: string;
  child: string | undefined;
  dir: string;
  version: string;
}) {
  const [listing, setListing] = useState<StageDirectory | undefined>();
  const [texts, setTexts] = useState(new Map<string, string>());
  useEffect(() => {
    let cancelled = false;
    apiJson<StageDirectory>(runPath(runId, `/stage?dir=${encodeURIComponent(dir)}`, child)).then(
      async (found) => {
        const loaded = new Map<string, string>();
        await Promise.all(
          found.files
            .filter((file) => file.bytes <= INLINE_LIMIT)
            .map(async (file) => {
              const text = await apiText(
                runPath(runId, `/stage-file?dir=${encodeURIComponent(dir)}&name=${file.name}`, child),
              ).catch((failure: unknown) => `(${(failure as Error).message})`);
              loaded.set(file.name, text);
            }),
        );
        if (cancelled) return;
        setListing(found);
        setTexts(loaded);
      },
      () => {
        if (!cancelled) setListing(undefined);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [runId, child, dir, version]);
  if (listing === undefined || listing.files.length === 0) return null;
  return (
    <div class="stage-files" data-dir={dir}>
      <h3>Files</h3>
      {listing.files.map((file) => {
        const text = texts.get(file.name);
        return (
          <details
            key={file.name}
            class="stage-file"
            data-file={file.name}
            open={file.name === 'stderr.txt' ? file.bytes > 0 : file.name === 'prompt.md'}
          >
            <summary>
              <code>{file.name}</code>{' '}
              <span class="muted small">{file.bytes.toLocaleString('en-US')} bytes</span>
            </summary>
            {text === undefined ? (
              <p class="muted small">Too large to show here ({file.bytes} bytes).</p>
            ) : file.name === 'status.json' ? (
              <JsonTree value={parseJson(text)} />
            ) : (
              <pre class={`file-text${file.name === 'stderr.txt' ? ' stderr' : ''}`}>{text}</pre>
            )}
          </details>
        );
      })}
    </div>
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The child pipeline a node started (sub-pipeline or manager loop): its run id and each stage's status, live, and
 * the link to its own run view (graph, stage panes, timeline).
 */
function ChildRun({ runId, child }: { runId: string; child: ChildRunView }) {
  return (
    <div class="child-run" id="child-run" data-run={child.runId} data-path={child.path}>
      <h3>
        Sub-pipeline <span class="muted small mono">{child.runId}</span>{' '}
        <span class={`badge state-${child.ended ?? 'running'}`}>{child.ended ?? 'running'}</span>
      </h3>
      <p>
        <a
          class="button small"
          id="open-child-run"
          href={runHref(runId, undefined, { child: child.path })}
          onClick={onLinkClick}
        >
          Open its run view
        </a>
      </p>
      <ol class="child-stages">
        {[...child.stages.entries()].map(([stage, status]) => (
          <li key={stage} data-node={stage} data-status={status}>
            <code>{stage}</code> <span class={`badge state-${status}`}>{status}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/**
 * The branches of a parallel node (of its latest run), each with its outcome and a link to its own page: the
 * graph coloured by the stages inside that branch only (nested blocks, or a node that runs in several branches).
 */
function Branches({
  runId,
  child,
  branches,
  current,
}: {
  runId: string;
  child: string | undefined;
  branches: readonly BranchView[];
  current: string | undefined;
}) {
  // The latest run of the node: the last branch started at each path.
  const latest = new Map<string, BranchView>();
  for (const branch of branches) latest.set(branch.path.join('/'), branch);
  return (
    <div class="branches" id="branches">
      <h3>Branches</h3>
      <ul>
        {[...latest.values()].map((branch) => {
          const key = branch.path.join('/');
          return (
            <li key={key} data-branch={key} data-status={branch.status}>
              <a
                href={runHref(runId, undefined, { child, branch: key })}
                onClick={onLinkClick}
                aria-current={current === key ? 'page' : undefined}
              >
                branch <code>{branch.path.join(' › ')}</code>
              </a>{' '}
              <span class={`badge state-${branch.status}`}>{branch.status.replace('_', ' ')}</span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
