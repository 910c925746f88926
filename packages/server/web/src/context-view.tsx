/**
 * The run's context as of its last checkpoint, as a table of keys and collapsible JSON values. It is read again
 * after each `checkpoint.saved` event (at most one request at a time), never on a timer.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiJson, runPath } from './api.js';
import { ErrorNote } from './error-note.js';
import { JsonTree } from './json-tree.js';

/** The context table; `checkpoints` counts the checkpoints seen so far (a change triggers a fresh read). */
export function ContextView({
  runId,
  child,
  checkpoints,
}: {
  runId: string;
  /** A child run inside run `runId` (`checks/child`) whose context is shown instead. */
  child?: string | undefined;
  checkpoints: number;
}) {
  const [context, setContext] = useState<
    { context: Record<string, unknown>; afterNode?: string } | undefined
  >();
  const [error, setError] = useState<string | undefined>();
  const loading = useRef(false);
  const again = useRef(false);

  useEffect(() => {
    const load = () => {
      if (loading.current) {
        again.current = true;
        return;
      }
      loading.current = true;
      apiJson<{ context: Record<string, unknown>; afterNode?: string }>(runPath(runId, '/context', child))
        .then(
          (body) => {
            setContext(body);
            setError(undefined);
          },
          (failure: unknown) => setError((failure as Error).message),
        )
        .finally(() => {
          loading.current = false;
          if (again.current) {
            again.current = false;
            load();
          }
        });
    };
    load();
  }, [runId, child, checkpoints]);

  if (error !== undefined) return <ErrorNote message={error} />;
  if (context === undefined) return <p class="muted">Loading the context…</p>;
  const entries = Object.entries(context.context).sort(([a], [b]) => a.localeCompare(b));
  return (
    <>
      <p class="muted small">
        {context.afterNode === undefined
          ? 'No checkpoint yet.'
          : `As of the checkpoint after ${context.afterNode}.`}
      </p>
      <div class="table-wrap">
        <table class="kv" id="context-table">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {entries.map(([key, value]) => (
              <tr key={key} data-key={key}>
                <th scope="row">
                  <code>{key}</code>
                </th>
                <td>
                  <JsonTree value={value} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
