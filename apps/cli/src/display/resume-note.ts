import type { PipelineEvent } from '@attractor/engine';

/** What a failed run's summary adds to its resume command: what resuming it does (see {@link createResumeNote}). */
export interface ResumeNote {
  /** Called with every event of the run, in order. */
  onEvent(event: PipelineEvent): void;
  /** The note for the summary, or undefined when the run's last top-level stage did not fail. */
  text(): string | undefined;
}

/** A top-level foreach's items, as its latest visit's events reported them. */
interface ForeachItems {
  succeeded: number;
  readonly failed: number[];
  notStarted: number;
}

/**
 * Follows a run's events to say, after a failure, what `attractor resume` will do (README "How failures route": it
 * runs the stage the run failed at again): a failed stage runs again, and a cause still there (a command that exits
 * 1, a wrong file) fails it the same way. For a foreach failed under `on_item_error=fail` (README "Typed data") it says
 * which items resuming keeps (those that succeeded) and which run (the failed ones and those not started). Only
 * top-level events count: a branch's or an item's stage is not where the run stopped.
 */
export function createResumeNote(): ResumeNote {
  let failedNode: string | undefined;
  const foreaches = new Map<string, ForeachItems>();
  return {
    onEvent(event) {
      if ((event.branchPath?.length ?? 0) > 0) return;
      if (event.type === 'stage.completed') {
        failedNode = event.status === 'fail' ? event.nodeId : undefined;
      } else if (event.type === 'foreach.started') {
        foreaches.set(event.nodeId, { succeeded: 0, failed: [], notStarted: 0 });
      } else if (event.type === 'foreach.item.completed') {
        const items = foreaches.get(event.nodeId);
        if (items === undefined) return;
        if (event.success) items.succeeded += 1;
        else items.failed.push(event.index);
      } else if (event.type === 'foreach.completed') {
        const items = foreaches.get(event.nodeId);
        if (items !== undefined) items.notStarted = event.notStartedCount;
      }
    },
    text() {
      if (failedNode === undefined) return undefined;
      const items = foreaches.get(failedNode);
      if (items === undefined) {
        return `resuming runs "${failedNode}" again; unless what made it fail is fixed or was passing, it fails the same way.`;
      }
      return `resuming runs foreach "${failedNode}" again: ${foreachRerun(items)}, it fails the same way.`;
    },
  };
}

/** What resuming a failed foreach keeps and runs, up to the comma before "it fails the same way". */
function foreachRerun({ succeeded, failed, notStarted }: ForeachItems): string {
  const kept =
    succeeded === 0
      ? 'it keeps no item'
      : `it keeps the ${succeeded} item${succeeded === 1 ? ' that' : 's that'} succeeded`;
  const runs = [
    ...(failed.length === 0
      ? []
      : [`${failed.length === 1 ? 'item' : 'items'} ${listed(failed.map(String))} (failed)`]),
    ...(notStarted === 0 ? [] : [`the ${notStarted} not started`]),
  ];
  const cause =
    failed.length === 0
      ? 'unless what failed it is fixed or was passing'
      : `unless what made ${failed.length === 1 ? `item ${failed[0]}` : 'them'} fail is fixed or was passing`;
  return `${kept} and runs ${runs.length === 0 ? 'the rest' : listed(runs)}; ${cause}`;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}
