/**
 * The page's connection to the server, as the header shows it: every open event stream reports here whether it is
 * live, connecting, reconnecting (it dropped and is retrying) or offline (a retry failed: the server cannot be
 * reached; it keeps retrying), and when it last received a message. The page's state is the worst of its streams'.
 * Pages also learn here when the connection comes back, to re-read what they show (events missed while offline).
 */
import { useEffect, useState } from 'preact/hooks';

/** One stream's state; `connecting` only before its first open. */
export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'offline';

/** The page's connection: its state and when a message last came (ms since the epoch). */
export interface ConnectionSnapshot {
  /** `undefined` when no stream is open. */
  readonly state: StreamState | undefined;
  readonly lastEventAt: number | undefined;
}

/** A stream's handle on the shared state: {@link connection.add}. */
export interface StreamEntry {
  set(state: StreamState): void;
  /** A message came. */
  heard(): void;
  remove(): void;
}

const RANK: Readonly<Record<StreamState, number>> = { live: 0, connecting: 1, reconnecting: 2, offline: 3 };

type Listener = () => void;

/** Least time between two "a message came" notifications, in milliseconds. */
const HEARD_EVERY_MS = 500;

const streams = new Map<object, StreamState>();
const listeners = new Set<Listener>();
const restoredListeners = new Set<Listener>();
let lastEventAt: number | undefined;
let snapshot: ConnectionSnapshot = { state: undefined, lastEventAt: undefined };

function update(): void {
  const previous = snapshot.state;
  let state: StreamState | undefined;
  for (const entry of streams.values()) if (state === undefined || RANK[entry] > RANK[state]) state = entry;
  snapshot = { state, lastEventAt };
  for (const listener of listeners) listener();
  if (state === 'live' && (previous === 'reconnecting' || previous === 'offline'))
    for (const listener of restoredListeners) listener();
}

/** The shared connection state of the page's event streams. */
export const connection = {
  /** The current state. */
  get snapshot(): ConnectionSnapshot {
    return snapshot;
  },
  /** Registers a stream (state `connecting`). */
  add(): StreamEntry {
    const key = {};
    streams.set(key, 'connecting');
    update();
    return {
      set(state) {
        if (!streams.has(key)) return;
        streams.set(key, state);
        update();
      },
      heard() {
        const now = Date.now();
        // The indicator shows whole seconds: a burst of events tells its listeners twice a second at most.
        if (lastEventAt !== undefined && now - lastEventAt < HEARD_EVERY_MS) return;
        lastEventAt = now;
        snapshot = { ...snapshot, lastEventAt };
        for (const listener of listeners) listener();
      },
      remove() {
        if (streams.delete(key)) update();
      },
    };
  },
  /** Calls `listener` on every change; returns the function that stops it. */
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /**
   * Calls `listener` each time the connection is live again after it was lost (every stream reconnected): the page
   * then re-reads what the server may have changed meanwhile. Returns the function that stops it.
   */
  onRestored(listener: Listener): () => void {
    restoredListeners.add(listener);
    return () => restoredListeners.delete(listener);
  },
};

/** Whether `state` says the connection was lost (reconnecting or offline): live data may be stale. */
export function isLost(state: StreamState | undefined): boolean {
  return state === 'reconnecting' || state === 'offline';
}

/** The connection's state alone as a hook: re-renders when the state changes, not on every message. */
export function useConnectionState(): StreamState | undefined {
  return useSelected((current) => current.state);
}

/** The connection as a hook: re-renders on every change (a new state, a message). */
export function useConnection(): ConnectionSnapshot {
  return useSelected((current) => current);
}

/** `select(snapshot)`, kept current; re-renders when it gives another value. */
function useSelected<TValue>(select: (current: ConnectionSnapshot) => TValue): TValue {
  const [value, setValue] = useState(() => select(snapshot));
  useEffect(() => {
    const update = () => setValue(() => select(snapshot));
    update();
    return connection.subscribe(update);
  }, []);
  return value;
}
