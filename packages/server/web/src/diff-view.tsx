/**
 * What a run or a stage changed in its workspace (README "Workspaces"): the number of files and lines, each changed
 * file with its status and lines added and deleted, and the patch, its lines marked as added, deleted or hunk
 * headers. {@link RunChanges} is the run's "Changes" tab; {@link StageChanges} sits in a stage's visit.
 */
import type { WorkspaceDiff } from '@attractor/engine';
import { useEffect, useState } from 'preact/hooks';
import { ApiRequestError, apiJson, type RunDiffResponse, runPath, type StageDiffResponse } from './api.js';
import { ErrorNote } from './error-note.js';

/** The summary, files and patch of a diff. */
export function DiffView({ diff, id }: { diff: WorkspaceDiff; id?: string }) {
  const count = diff.files.length;
  return (
    <div class="diff" id={id}>
      <p class="diff-summary">
        {count === 1 ? '1 file' : `${count} files`} changed, <span class="diff-added">+{diff.additions}</span>{' '}
        <span class="diff-deleted">−{diff.deletions}</span>{' '}
        <span class="muted small mono">
          {diff.from.slice(0, 12)}..{diff.to.slice(0, 12)}
        </span>
      </p>
      <table class="diff-files">
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Change</th>
            <th scope="col">Lines</th>
          </tr>
        </thead>
        <tbody>
          {diff.files.map((file) => (
            <tr key={file.path} data-path={file.path} data-status={file.status}>
              <td>
                <code>{file.path}</code>
                {file.previousPath !== undefined && (
                  <span class="muted small">
                    {' '}
                    from <code>{file.previousPath}</code>
                  </span>
                )}
              </td>
              <td>{file.status}</td>
              <td>
                {file.binary ? (
                  <span class="muted">binary</span>
                ) : (
                  <>
                    <span class="diff-added">+{file.additions ?? 0}</span>{' '}
                    <span class="diff-deleted">−{file.deletions ?? 0}</span>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {diff.patch !== '' && (
        <details class="diff-patch">
          <summary>Patch{diff.truncated ? ' (cut short: too large to show whole)' : ''}</summary>
          <pre class="file-text patch-text">
            {diff.patch.split('\n').map((line, index) => (
              <span key={index} class={lineClass(line)}>
                {line}
                {'\n'}
              </span>
            ))}
          </pre>
        </details>
      )}
    </div>
  );
}

/** The class of a patch line: added, deleted, a hunk header, a file header, or context. */
function lineClass(line: string): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff --git')) return 'patch-file';
  if (line.startsWith('@@')) return 'patch-hunk';
  if (line.startsWith('+')) return 'patch-add';
  if (line.startsWith('-')) return 'patch-del';
  return undefined;
}

/**
 * The run's "Changes" tab: what it changed since it started (`GET /pipelines/{id}/diff`), read again after each
 * checkpoint; a run that works in place says so.
 */
export function RunChanges({ runId, checkpoints }: { runId: string; checkpoints: number }) {
  const [diff, setDiff] = useState<RunDiffResponse | undefined>();
  const [note, setNote] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let cancelled = false;
    apiJson<RunDiffResponse>(runPath(runId, '/diff')).then(
      (body) => {
        if (cancelled) return;
        setDiff(body);
        setNote(undefined);
        setError(undefined);
      },
      (failure: unknown) => {
        if (cancelled) return;
        if (failure instanceof ApiRequestError && failure.code === 'NO_WORKSPACE') setNote(failure.message);
        else setError((failure as Error).message);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [runId, checkpoints]);
  if (error !== undefined) return <ErrorNote message={error} id="run-changes-error" />;
  if (note !== undefined)
    return (
      <p class="muted" id="run-changes-none">
        {note}
      </p>
    );
  if (diff === undefined) return <p class="muted">Loading the run's changes…</p>;
  return (
    <section id="run-changes" aria-label="What the run changed">
      <p class="muted small">
        {diff.mode} workspace
        {diff.branch === null ? (
          ''
        ) : (
          <>
            , branch <code>{diff.branch}</code>
          </>
        )}
        : everything its stages changed since it started.
      </p>
      <DiffView diff={diff} />
    </section>
  );
}

/**
 * What one visit of a stage changed (`GET /pipelines/{id}/stage-diff?dir=`), when it made a commit; nothing for a
 * stage that changed no file or a run without a workspace.
 */
export function StageChanges({ runId, dir, version }: { runId: string; dir: string; version: string }) {
  const [diff, setDiff] = useState<StageDiffResponse | undefined>();
  useEffect(() => {
    let cancelled = false;
    apiJson<StageDiffResponse>(runPath(runId, `/stage-diff?dir=${encodeURIComponent(dir)}`)).then(
      (body) => {
        if (!cancelled) setDiff(body);
      },
      () => {
        if (!cancelled) setDiff(undefined);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [runId, dir, version]);
  if (diff === undefined || diff.commit === null) return null;
  return (
    <div class="stage-changes" data-dir={dir} data-commit={diff.commit}>
      <h3>
        Changes <span class="muted small mono">commit {diff.commit.slice(0, 12)}</span>
      </h3>
      <DiffView diff={diff} />
    </div>
  );
}
