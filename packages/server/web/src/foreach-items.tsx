/**
 * The items of a `foreach` node (README "Typed data" → `foreach`), shown in the stage pane of the node and of the
 * nodes of its body: per item its index, value (short), status, duration and failure reason, live from the
 * `foreach.item.*` events, with counts on top. An item's index opens its stages (the item's branch view, as a
 * parallel branch's).
 */
import { formatDuration } from './format.js';
import { onLinkClick, runHref } from './router.js';
import type { ForeachView, ItemView, RunState } from './run-state.js';

/** Props of {@link ForeachItems}. */
export interface ForeachItemsProps {
  readonly runId: string;
  /** A child run inside run `runId` (`checks/child`) whose foreach this is. */
  readonly child: string | undefined;
  /** The branch the page shows (`items/3`), if it shows one: that item is marked current. */
  readonly current: string | undefined;
  readonly view: ForeachView;
  readonly state: RunState;
  /** The stage pane's node: an item's link opens it when it ran in that item. */
  readonly nodeId: string;
  /** The page's clock (ms since the epoch): running items count from it. */
  readonly now: number;
}

/** Statuses of an item that ended without success. */
const FAILED = new Set(['fail', 'cancelled']);

/** `47 of 50 done, 3 failed` (and how many never ran). */
export function itemCounts(view: ForeachView): string {
  const done = view.items.filter(
    (item) => item.status !== 'pending' && item.status !== 'running' && item.status !== 'skipped',
  ).length;
  const failed = view.items.filter((item) => FAILED.has(item.status)).length;
  const skipped = view.items.filter((item) => item.status === 'skipped').length;
  return `${done} of ${view.itemCount} done, ${failed} failed${skipped === 0 ? '' : `, ${skipped} not run`}`;
}

/** The items list of one foreach node. */
export function ForeachItems({ runId, child, current, view, state, nodeId, now }: ForeachItemsProps) {
  const titleId = `items-title-${view.nodeId}`;
  return (
    <div class="foreach-items" id={`items-${view.nodeId}`} data-foreach={view.nodeId}>
      <h3 id={titleId}>
        Items of <code>{view.nodeId}</code>{' '}
        <span class="muted small items-counts" aria-live="polite">
          {itemCounts(view)}
        </span>
      </h3>
      <div class="items-scroll">
        <table class="items-table" aria-labelledby={titleId}>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Value</th>
              <th scope="col">Status</th>
              <th scope="col">Duration</th>
              <th scope="col">Failure</th>
            </tr>
          </thead>
          <tbody>
            {view.items.map((item) => {
              const key = item.path.join('/');
              return (
                <tr key={key} data-item={item.index} data-status={item.status}>
                  <td>
                    <a
                      href={runHref(runId, stageOfItem(state, item, view, nodeId), { child, branch: key })}
                      onClick={onLinkClick}
                      aria-current={current === key ? 'page' : undefined}
                      aria-label={`Item ${item.index}: its stages`}
                    >
                      {item.index}
                    </a>
                  </td>
                  <td class="mono item-value" title={item.item}>
                    {item.item ?? '–'}
                  </td>
                  <td>
                    <span class={`badge state-${item.status}`}>
                      {item.kept ? `${item.status.replace('_', ' ')} (kept)` : item.status.replace('_', ' ')}
                    </span>
                  </td>
                  <td class="item-duration">
                    {item.durationMs !== undefined
                      ? formatDuration(item.durationMs)
                      : item.status === 'running' && item.startedAtMs !== undefined
                        ? formatDuration(now - item.startedAtMs)
                        : '–'}
                  </td>
                  <td class="fail-text item-failure">{item.failureReason ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * The stage an item's link opens: `nodeId` when it is a node of the body (not the foreach node itself), else the
 * item's first stage seen, else none (the item's view then shows its graph only).
 */
function stageOfItem(state: RunState, item: ItemView, view: ForeachView, nodeId: string): string | undefined {
  if (nodeId !== view.nodeId) return nodeId;
  const inItem = (branchPath: readonly string[]) =>
    item.path.every((part, index) => branchPath[index] === part);
  return state.attempts.find((attempt) => inItem(attempt.branchPath))?.nodeId;
}
