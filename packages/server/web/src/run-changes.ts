/**
 * The app's `GET /events` stream, open on every page while signed in: it keeps the header's connection indicator
 * meaningful everywhere (see `connection-state.ts`), and the runs page follows its `run` messages (a run's new
 * summary whenever it changes) instead of opening a second one.
 */
import type { RunSummary } from './api.js';
import { openEventStream } from './event-stream.js';

const runListeners = new Set<(summary: RunSummary) => void>();
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
 * Follows the run changes: `onRun` gets every run's new summary; `onOpen` (optional) is called at once when the stream
 * is open, and again each time it (re)opens — when changes may have been missed. Returns the function that stops both.
 */
export function onRunChanges(handlers: {
  readonly onRun: (summary: RunSummary) => void;
  readonly onOpen?: () => void;
}): () => void {
  const { onRun, onOpen } = handlers;
  runListeners.add(onRun);
  if (onOpen !== undefined) {
    openListeners.add(onOpen);
    if (open) onOpen();
  }
  return () => {
    runListeners.delete(onRun);
    if (onOpen !== undefined) openListeners.delete(onOpen);
  };
}
