/**
 * The app's `GET /events` stream, open on every page while signed in: it keeps the header's connection indicator
 * meaningful everywhere (see `connection-state.ts`), and the runs page follows its `run` messages (a run's new
 * summary whenever it changes) and `removed` messages (a deleted run) instead of opening a second one.
 */
import type { RunSummary } from './api.js';
import { openEventStream } from './event-stream.js';

const runListeners = new Set<(summary: RunSummary) => void>();
const removedListeners = new Set<(id: string) => void>();
const openListeners = new Set<() => void>();
let open = false;

/** Opens the stream (the app does, once signed in); returns the function that closes it. */
export function followRunChanges(): () => void {
  const close = openEventStream(
    '/events',
    {
      run: (data) => {
        const summary = JSON.parse(data) as RunSummary;
        for (const listener of runListeners) listener(summary);
      },
      removed: (data) => {
        const { id } = JSON.parse(data) as { id: string };
        for (const listener of removedListeners) listener(id);
      },
    },
    {
      onOpen: () => {
        open = true;
        for (const listener of openListeners) listener();
      },
    },
  );
  return () => {
    open = false;
    close();
  };
}

/**
 * Follows the run changes: `onRun` gets every run's new summary, `onRemoved` (optional) the id of a deleted run;
 * `onOpen` (optional) is called at once when the stream
 * is open, and again each time it (re)opens — when changes may have been missed. Returns the function that stops both.
 */
export function onRunChanges(handlers: {
  readonly onRun: (summary: RunSummary) => void;
  readonly onRemoved?: (id: string) => void;
  readonly onOpen?: () => void;
}): () => void {
  const { onRun, onRemoved, onOpen } = handlers;
  runListeners.add(onRun);
  if (onRemoved !== undefined) removedListeners.add(onRemoved);
  if (onOpen !== undefined) {
    openListeners.add(onOpen);
    if (open) onOpen();
  }
  return () => {
    runListeners.delete(onRun);
    if (onRemoved !== undefined) removedListeners.delete(onRemoved);
    if (onOpen !== undefined) openListeners.delete(onOpen);
  };
}
